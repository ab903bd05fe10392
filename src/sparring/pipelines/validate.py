"""The ``validate`` pipeline: the player model's controlled scenarios as a grid of Ray tasks.

Cells (``sparring.modeling.scenarios``): reference rates per profile, estimation (profile ×
hands × seed), separation (profile pair × hands × seed), drift (shifting / stationary player ×
run), and ModelingBot vs control series (opponent × arm × series). The driver turns them into

- error |estimate − truth| vs n with the fitted log-log slope (≈ −1/2 expected), per metric;
- coverage of the credible intervals (nominal ``level``);
- separation: share of runs whose intervals are disjoint, per profile pair and n;
- drift: detection rate, median / 90th-percentile delay, false alarms per 100 hands;
- Brier scores and reliability diagrams of P(win lance) and P(bluff), per arm;
- win rate and tantos margin per hand of ModelingBot and the control, with 95% intervals, and
  the paired edge model − control per opponent;

logged to MLflow (metrics, PNG artifacts, a summary table, the bots' private summaries) and
written as one Parquet table (one row per measured value).
"""

from __future__ import annotations

import math
import re
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from sparring.config.validate import ValidateConfig
from sparring.modeling import scenarios
from sparring.modeling.calibration import CalibrationLog, reliability_plot
from sparring.modeling.scenarios import ESTIMATED, difference_ci, mean_ci
from sparring.reporting.console import print_locations, print_table
from sparring.reporting.plots import line_plot
from sparring.runtime import storage
from sparring.runtime.config import config_hash, to_container
from sparring.runtime.datasets import DatasetSpec, write_table
from sparring.runtime.parallel import parallel_map
from sparring.runtime.ray_session import init_ray
from sparring.runtime.storage import locate
from sparring.runtime.tracking import tracked_run
from sparring.seeding import task_seed

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


def run_cell(cell: tuple, profiles: dict[str, dict], seed: int, level: float) -> dict[str, Any]:
    """One grid cell, seeded by its own key (the same wherever and with whomever it runs)."""
    kind = cell[0]
    s = task_seed(seed, *cell)
    if kind == "reference":
        _, name, hands = cell
        return {"truth": scenarios.reference(profiles[name], hands, s)}
    if kind == "estimation":
        _, name, hands, _ = cell
        return {"rows": scenarios.estimation(profiles[name], hands, s, level)}
    if kind == "separation":
        _, first, second, hands, _ = cell
        return {"rows": scenarios.separation(profiles[first], profiles[second], hands, s)}
    if kind == "drift":
        _, name, hands, _ = cell
        return scenarios.drift(profiles[name], hands, s)
    if kind == "match":
        _, name, arm, games, _ = cell
        return {"series": scenarios.match_series(profiles[name], arm == "model", games, s)}
    raise ValueError(f"unknown cell kind {kind!r}")


def _name(*parts: object) -> str:
    return re.sub(r"[^A-Za-z0-9_.\-/ ]", "_", "/".join(str(p) for p in parts))


def _slope(ns: list[int], errors: list[float]) -> float:
    ok = [(n, e) for n, e in zip(ns, errors, strict=True) if e > 0 and math.isfinite(e)]
    if len(ok) < 2:
        return float("nan")
    x, y = np.log([n for n, _ in ok]), np.log([e for _, e in ok])
    return float(np.polyfit(x, y, 1)[0])


def run(job: ValidateConfig) -> dict[str, Any]:
    """Run the grid; returns the output path, the MLflow run id and the metrics (error slopes,
    coverage, separation, drift delay, Brier scores, the model's edge per opponent)."""
    storage.configure(job.storage)
    output = locate(job.output)
    init_ray(job.ray)
    seeds, hands = range(job.seeds), job.hands
    cells: list[tuple] = [("reference", p, job.reference_hands) for p in job.estimate]
    cells += [("estimation", p, n, i) for p in job.estimate for n in hands for i in seeds]
    cells += [("separation", a, b, n, i) for a, b in job.pairs for n in hands for i in seeds]
    for name in (job.drift.shifted, job.drift.stationary):
        cells += [("drift", name, job.drift.hands, i) for i in range(job.drift.runs)]
    cells += [
        ("match", p, arm, job.match.games, i)
        for p in job.match.opponents
        for arm in ("model", "control")
        for i in range(job.match.series)
    ]
    with tracked_run(job, "validate") as mlrun:
        start = time.perf_counter()
        results = parallel_map(
            run_cell,
            cells,
            shared={"profiles": job.profiles, "seed": job.seed, "level": job.level},
            description=f"validate: {len(cells)} cells",
        )
        wall = time.perf_counter() - start
        out = dict(zip(cells, results, strict=True))
        rows: list[dict[str, Any]] = []
        metrics: dict[str, float] = {"cells": len(cells), "wall_s": wall}
        summary: list[list[Any]] = []
        _estimation(job, out, rows, metrics, summary)
        _separation(job, out, rows, metrics, summary)
        _drift(job, out, rows, metrics, summary)
        logs, private = _matches(job, out, rows, metrics, summary)
        table = pa.Table.from_pylist(rows, schema=RESULTS_SPEC.schema)
        digest = config_hash(
            {k: v for k, v in to_container(job).items() if k not in ("ray", "tracking")}
        )
        write_table(table, output, RESULTS_SPEC, config_hash=digest, seed=job.seed)
        mlrun.log_metrics({k: v for k, v in metrics.items() if math.isfinite(v)})
        text = print_table("Player model validation", ["measure", "value", "detail"], summary)
        mlrun.log_text(text, "summary.txt")
        mlrun.log_text("\n".join(private), "private_summaries.txt")
        mlrun.log_artifact(output, "data")
        with tempfile.TemporaryDirectory() as tmp:
            for plot in _plots(job, out, logs, Path(tmp)):
                mlrun.log_artifact(plot, "plots")
    print_locations({"results": output}, job.tracking.uri, mlrun.run_id)
    return {"output": output, "run_id": mlrun.run_id, "metrics": metrics}


def _estimation(job, out, rows, metrics, summary) -> None:
    errors: dict[tuple[str, int], list[float]] = defaultdict(list)
    covered: dict[str, list[bool]] = defaultdict(list)
    for name in job.estimate:
        truth = out[("reference", name, job.reference_hands)]["truth"]
        for n in job.hands:
            for i in range(job.seeds):
                for r in out[("estimation", name, n, i)]["rows"]:
                    t = truth[r["metric"]]
                    if not math.isfinite(t):
                        continue
                    err = abs(r["estimate"] - t)
                    errors[(r["metric"], n)].append(err)
                    covered[r["metric"]].append(r["low"] <= t <= r["high"])
                    rows.append(dict(scenario="estimation", profile=name, arm="", hands=n,
                                     seed=i, metric=r["metric"], value=r["estimate"], truth=t,
                                     low=r["low"], high=r["high"]))  # fmt: skip
    if not errors:
        return
    slopes = []
    for metric in ESTIMATED:
        curve = [float(np.mean(errors[(metric, n)])) for n in job.hands]
        slope = _slope(job.hands, curve)
        slopes.append(slope)
        metrics[_name("error_slope", metric)] = slope
        metrics[_name("coverage", metric)] = float(np.mean(covered[metric]))
        for n, e in zip(job.hands, curve, strict=True):
            metrics[_name("error", metric, f"n={n}")] = e
    overall = [float(np.mean([e for m in ESTIMATED for e in errors[(m, n)]])) for n in job.hands]
    metrics["error_slope"] = _slope(job.hands, overall)
    metrics["coverage"] = float(np.mean([c for v in covered.values() for c in v]))
    summary.append(["error slope (log-log)", f"{metrics['error_slope']:.2f}",
                    "per metric " + ", ".join(f"{s:.2f}" for s in slopes)])  # fmt: skip
    summary.append(["interval coverage", f"{metrics['coverage']:.3f}", f"nominal {job.level}"])


def _separation(job, out, rows, metrics, summary) -> None:
    for a, b in job.pairs:
        shares = []
        for n in job.hands:
            separated = []
            for i in range(job.seeds):
                cell = out[("separation", a, b, n, i)]["rows"]
                separated.append(any(r["disjoint"] for r in cell))
                for r in cell:
                    rows.append(dict(scenario="separation", profile=f"{a}|{b}", arm="", hands=n,
                                     seed=i, metric=r["metric"], value=r["js"],
                                     truth=float("nan"), low=float("nan"),
                                     high=r["disjoint"]))  # fmt: skip
            share = float(np.mean(separated))
            shares.append(share)
            metrics[_name("separated", f"{a}_vs_{b}", f"n={n}")] = share
        detail = ", ".join(f"n={n}: {s:.2f}" for n, s in zip(job.hands, shares, strict=True))
        summary.append([f"separated {a} vs {b}", f"{shares[-1]:.2f}", detail])


def _drift(job, out, rows, metrics, summary) -> None:
    delays, early, alarms_stationary = [], 0, 0
    shift = job.profiles[job.drift.shifted]["shift_after"]
    for i in range(job.drift.runs):
        r = out[("drift", job.drift.shifted, job.drift.hands, i)]
        delays.append(r["delay"])
        early += r["false_alarms"]
        s = out[("drift", job.drift.stationary, job.drift.hands, i)]
        alarms_stationary += s["false_alarms"]
        for name, res, metric in ((job.drift.shifted, r, "delay"),
                                  (job.drift.stationary, s, "false_alarms")):  # fmt: skip
            rows.append(dict(scenario="drift", profile=name, arm="", hands=job.drift.hands,
                             seed=i, metric=metric, value=float(res[metric]), truth=float("nan"),
                             low=float("nan"), high=float("nan")))  # fmt: skip
    found = [d for d in delays if math.isfinite(d)]
    hands_watched = job.drift.runs * job.drift.hands + job.drift.runs * shift
    metrics["drift/detected"] = len(found) / len(delays)
    metrics["drift/delay_median"] = float(np.median(found)) if found else float("nan")
    metrics["drift/delay_p90"] = float(np.percentile(found, 90)) if found else float("nan")
    metrics["drift/false_alarms_per_100_hands"] = 100 * (alarms_stationary + early) / hands_watched
    summary.append(["shift detected", f"{metrics['drift/detected']:.2f}",
                    f"median delay {metrics['drift/delay_median']:.0f} hands, 90% "
                    f"{metrics['drift/delay_p90']:.0f}"])  # fmt: skip
    summary.append(["false alarms / 100 hands",
                    f"{metrics['drift/false_alarms_per_100_hands']:.2f}",
                    "stationary player + before the shift"])  # fmt: skip


def _matches(job, out, rows, metrics, summary) -> tuple[dict[str, CalibrationLog], list[str]]:
    logs = {"model": CalibrationLog(), "control": CalibrationLog()}
    private: list[str] = []
    for name in job.match.opponents:
        margins: dict[str, list[float]] = {"model": [], "control": []}
        for arm in ("model", "control"):
            wins = []
            for i in range(job.match.series):
                series = out[("match", name, arm, job.match.games, i)]["series"]
                margins[arm] += series.margins
                wins += series.wins
                for kind, pairs in series.calibration.items():
                    for p, y in pairs:
                        logs[arm].add(kind, p, y)
                for g, (m, w) in enumerate(zip(series.margins, series.wins, strict=True)):
                    for metric, value in (("margin_per_hand", m), ("win", float(w))):
                        rows.append(dict(scenario="match", profile=name, arm=arm,
                                         hands=job.match.games, seed=i * job.match.games + g,
                                         metric=metric, value=value, truth=float("nan"),
                                         low=float("nan"), high=float("nan")))  # fmt: skip
                if arm == "model" and i == 0:
                    for lang, lines in series.summary.items():
                        private.append(f"[{name}, {lang}] " + " ".join(lines))
            rate, low, high = mean_ci([float(w) for w in wins])
            m, m_low, m_high = mean_ci(margins[arm])
            base = _name("match", name, arm)
            metrics |= {f"{base}/win_rate": rate, f"{base}/win_rate_low": low,
                        f"{base}/win_rate_high": high, f"{base}/margin_per_hand": m,
                        f"{base}/margin_low": m_low, f"{base}/margin_high": m_high}  # fmt: skip
        edge, low, high = _paired(margins["model"], margins["control"])
        metrics |= {_name("edge", name): edge, _name("edge", name, "low"): low,
                    _name("edge", name, "high"): high}  # fmt: skip
        summary.append([f"edge vs {name} (tantos/hand)", f"{edge:+.2f}",
                        f"95% [{low:+.2f}, {high:+.2f}]; win rate model "
                        f"{metrics[_name('match', name, 'model', 'win_rate')]:.2f} / control "
                        f"{metrics[_name('match', name, 'control', 'win_rate')]:.2f}"])  # fmt: skip
    for arm, log in logs.items():
        for kind in log.pairs:
            metrics[_name("brier", arm, kind)] = log.brier(kind)
        detail = ", ".join(f"{k} {log.brier(k):.3f}" for k in sorted(log.pairs))
        if detail:
            summary.append([f"Brier ({arm})", "", detail])
    return logs, private


def _paired(model: list[float], control: list[float]) -> tuple[float, float, float]:
    """Model − control per game index (same seeds: common random numbers)."""
    if len(model) == len(control):
        return mean_ci(np.asarray(model) - np.asarray(control))
    return difference_ci(model, control)


def _plots(job, out, logs, tmp: Path) -> list[Path]:
    plots = []
    if job.estimate:
        series = {}
        for metric in ESTIMATED:
            curve = []
            for n in job.hands:
                errors = []
                for p in job.estimate:
                    truth = out[("reference", p, job.reference_hands)]["truth"][metric]
                    for i in range(job.seeds):
                        errors += [abs(r["estimate"] - truth)
                                   for r in out[("estimation", p, n, i)]["rows"]
                                   if r["metric"] == metric]  # fmt: skip
                curve.append(float(np.nanmean(errors)))
            series[metric] = curve
        ref = series[ESTIMATED[0]][0] * np.sqrt(job.hands[0] / np.asarray(job.hands))
        series["1/sqrt(n)"] = list(ref)
        plots.append(line_plot(tmp / "error_vs_n.png", job.hands, series,
                               "Mean |estimate - truth| vs hands observed", "hands",
                               "mean absolute error", loglog=True))  # fmt: skip
    for arm, log in logs.items():
        if log.pairs:
            plots.append(reliability_plot(tmp / f"reliability_{arm}.png", log,
                                          f"Reliability ({arm})"))  # fmt: skip
    return plots
