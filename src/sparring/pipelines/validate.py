"""The ``validate`` pipeline: the player model's controlled scenarios as a grid of Ray tasks.

Cells (``sparring.modeling.validation``, computed by ``sparring.modeling.scenarios``):
reference rates per profile, estimation (profile × hands × seed), separation (profile pair ×
hands × seed), drift (shifting / stationary player × run), and ModelingBot vs control series
(opponent × arm × series). The driver turns them (``validation.measure``) into

- error |estimate − truth| vs n with the fitted log-log slope (≈ −1/2 expected), per metric;
- coverage of the credible intervals (nominal ``level``);
- separation: share of runs whose intervals are disjoint, per profile pair and n;
- drift: detection rate, median / 90th-percentile delay, false alarms per 100 hands;
- Brier scores and reliability diagrams of P(win lance) and P(bluff), per arm;
- win rate and tantos margin per hand of ModelingBot and the control, with 95% intervals, and
  the paired edge model − control per opponent;

logged to one MLflow run ``validate`` (the finite metrics, ``summary.txt`` — the printed
table —, ``private_summaries.txt``, ``data/<output>``, ``plots/error_vs_n.png`` and
``plots/reliability_<arm>.png``) and written to ``output`` as one ``validate`` Parquet table
(one row per measured value).
"""

from __future__ import annotations

import math
import time
from functools import partial
from pathlib import Path
from typing import Any

import pyarrow as pa

from sparring.config.validate import ValidateConfig
from sparring.frame.session import Session, pipeline_session, results_hash
from sparring.modeling import validation
from sparring.modeling.calibration import CalibrationLog, reliability_plot
from sparring.modeling.validation import run_cell
from sparring.reporting.plots import line_plot
from sparring.runtime.ray.parallel import parallel_map
from sparring.runtime.storage.datasets import DatasetSpec

__all__ = ["RESULTS_SPEC", "run", "run_cell"]

RESULTS_SPEC = DatasetSpec(
    name="validate",
    version=1,
    schema=pa.schema(
        [
            ("scenario", pa.string()),  # estimation | separation | drift | match
            ("profile", pa.string()),
            ("arm", pa.string()),  # match: model | control
            ("hands", pa.int64()),
            ("seed", pa.int64()),
            ("metric", pa.string()),
            ("value", pa.float64()),
            ("truth", pa.float64()),
            ("low", pa.float64()),
            ("high", pa.float64()),
        ]
    ),
)


def run(job: ValidateConfig) -> dict[str, Any]:
    """Run the grid; returns the output Location, the MLflow run id and the metrics (``cells``,
    ``wall_s``, error slopes, coverage, separation, drift delay, Brier scores, the model's edge
    per opponent; NaN where a measure is undefined, and not logged then)."""
    cells = validation.cells(job)
    with pipeline_session(job, "validate") as session:
        output = session.locate(job.output)
        output.parent.check_writable()  # one line now, not after every cell is computed
        start = time.perf_counter()
        results = parallel_map(
            run_cell,
            cells,
            shared={"profiles": job.profiles, "seed": job.seed, "level": job.level},
            description=f"validate: {len(cells)} cells",
        )
        wall = time.perf_counter() - start
        out = dict(zip(cells, results, strict=True))
        found = validation.measure(job, out)
        metrics: dict[str, float] = {"cells": len(cells), "wall_s": wall, **found.metrics}
        session.write(RESULTS_SPEC, found.rows, output, label="results",
                      config_hash=results_hash(job), seed=job.seed)  # fmt: skip
        session.log_metrics({k: v for k, v in metrics.items() if math.isfinite(v)})
        session.table("Player model validation", ["measure", "value", "detail"], found.summary,
                      artifact="summary.txt")  # fmt: skip
        session.run.log_text("\n".join(found.private), "private_summaries.txt")
        session.run.log_artifact(output, "data")
        _log_plots(session, job, validation.error_curves(job, out), found.logs)
    return session.results(metrics, output=output)


def _log_plots(
    session: Session,
    job: ValidateConfig,
    curves: dict[str, list[float]],
    logs: dict[str, CalibrationLog],
) -> None:
    """The error-vs-n curves (log-log, with the 1/√n reference) and a reliability diagram per
    arm that made predictions, under ``plots/`` in the run."""
    if curves:
        session.log_plot(partial(_error_plot, hands=job.hands, curves=curves), "plots")
    for arm, log in logs.items():
        if log.pairs:
            session.log_plot(partial(_reliability, arm=arm, log=log), "plots")


def _error_plot(tmp: Path, hands: list[int], curves: dict[str, list[float]]) -> Path:
    return line_plot(tmp / "error_vs_n.png", hands, curves,
                     "Mean |estimate - truth| vs hands observed", "hands",
                     "mean absolute error", loglog=True)  # fmt: skip


def _reliability(tmp: Path, arm: str, log: CalibrationLog) -> Path:
    return reliability_plot(tmp / f"reliability_{arm}.png", log, f"Reliability ({arm})")
