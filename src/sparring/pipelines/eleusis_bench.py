"""The ``eleusis_bench`` pipeline: decks x starting harma x scientists as Ray tasks.

One task per cell plays ``seeds`` games; results go to a Parquet table (one row per cell), a
second one with every game, a summary table, MLflow metrics per cell and a plot of each
scientist's guesses relative to the oracle. When the report's baseline (``frequency``) is in the
grid, every other scientist is compared with it game by game: game i of every cell is the same
deck and card stream, so the paired difference is the fair comparison.
"""

from __future__ import annotations

import re
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from sparring.config.eleusis_bench import EleusisBenchConfig
from sparring.eleusis.bench import (
    BASELINE,
    CellResult,
    Games,
    run_cell_with_games,
    versus_baseline,
)
from sparring.reporting.console import print_locations, print_table
from sparring.reporting.plots import grouped_bars
from sparring.runtime import storage
from sparring.runtime.config import config_hash, to_container
from sparring.runtime.datasets import DatasetSpec, write_table
from sparring.runtime.parallel import parallel_map
from sparring.runtime.ray_session import init_ray
from sparring.runtime.storage import Location, locate
from sparring.runtime.tracking import tracked_run

RESULTS_SPEC = DatasetSpec(
    name="eleusis_bench",
    version=1,
    schema=pa.schema(
        [
            ("deck", pa.string()),
            ("h0", pa.int64()),
            ("scientist", pa.string()),
            ("seeds", pa.int64()),
            ("mean_guesses", pa.float64()),
            ("stderr", pa.float64()),
            ("dnf_rate", pa.float64()),
            ("oracle_expected", pa.float64()),
            ("regret", pa.float64()),
            ("pseudo_regret", pa.float64()),
            ("guesses_per_s", pa.float64()),
            ("drift", pa.float64()),
        ]
    ),
)


GAMES_SPEC = DatasetSpec(
    name="eleusis_bench_games",
    version=1,
    schema=pa.schema(
        [
            ("deck", pa.string()),
            ("h0", pa.int64()),
            ("scientist", pa.string()),
            ("seed", pa.int64()),  # deck instance and card stream
            ("guesses", pa.int64()),
            ("finished", pa.bool_()),
            ("pseudo_regret", pa.float64()),  # sum of d* - d(guess) over the game
            ("oracle_expected", pa.float64()),  # on this deck (inf: it cannot finish)
        ]
    ),
)


def games_path(output: str | Path | Location) -> Location:
    """Where the per-game table goes: next to the results, ``<name>_games.parquet``."""
    output = locate(output)
    stem, dot, suffix = output.name.rpartition(".")
    stem, suffix = (stem, f".{suffix}") if dot and stem else (output.name, ".parquet")
    return output.with_name(f"{stem}_games{suffix}")


def _games_table(cells: list[tuple[str, int, str]], games: list[Games]) -> pa.Table:
    rows = [
        {
            "deck": deck,
            "h0": h0,
            "scientist": scientist,
            "seed": int(seed),
            "guesses": int(g.guesses[i]),
            "finished": bool(g.finished[i]),
            "pseudo_regret": float(g.regret_sum[i]),
            "oracle_expected": float(g.oracle_expected[i]),
        }
        for (deck, h0, scientist), g in zip(cells, games, strict=True)
        for i, seed in enumerate(g.seeds)
    ]
    return pa.Table.from_pylist(rows, schema=GAMES_SPEC.schema)


def _paired_text(difference: tuple[float, float, float] | None) -> str:
    if difference is None:
        return ""
    mean, low, high = difference
    return f"{mean:+,.1f} [{low:+,.1f}, {high:+,.1f}]"


def _metric_name(*parts: object) -> str:
    return re.sub(r"[^A-Za-z0-9_.\-/ ]", "_", "/".join(str(p) for p in parts))


REFERENCES = ("oracle", "optimal")  # they define the yardstick: not in the ratios


def oracle_ratios(results: list[CellResult]) -> dict[str, float]:
    """Mean guesses over the oracle's expected guesses, per scientist (``guesses_over_oracle/
    <name>``) and over every non-reference scientist (``guesses_over_oracle``), across the cells
    whose decks can finish (1 = as good as the oracle; lower is better)."""
    per: dict[str, list[float]] = {}
    for r in results:
        name = r.scientist.split(":", 1)[0]
        if name in REFERENCES or not (np.isfinite(r.oracle_expected) and r.oracle_expected > 0):
            continue
        per.setdefault(name, []).append(r.mean_guesses / r.oracle_expected)
    out = {f"guesses_over_oracle/{name}": float(np.mean(v)) for name, v in per.items()}
    if per:
        out["guesses_over_oracle"] = float(np.mean([np.mean(v) for v in per.values()]))
    return out


def run(job: EleusisBenchConfig) -> dict[str, Any]:
    """Play every cell; returns the output path, the MLflow run id and the metrics (mean
    guesses, DNF rate and ratio to the oracle per deck and scientist)."""
    storage.configure(job.storage)
    output = locate(job.output)
    init_ray(job.ray)
    scientists = job.played()
    cells = [(d, h, s) for d in job.decks for h in job.h0 for s in scientists]
    with tracked_run(job, "eleusis_bench") as mlrun:
        start = time.perf_counter()
        played: list[tuple[CellResult, Games]] = parallel_map(
            run_cell_with_games,
            cells,
            shared={"seeds": job.seeds, "cap": job.cap},
            description=f"eleusis: {len(cells)} cells x {job.seeds} games",
        )
        wall = time.perf_counter() - start
        results = [result for result, _ in played]
        games = [g for _, g in played]
        table = pa.Table.from_pylist([r.as_row() for r in results], schema=RESULTS_SPEC.schema)
        digest = config_hash(
            {k: v for k, v in to_container(job).items() if k not in ("ray", "tracking")}
        )
        write_table(table, output, RESULTS_SPEC, config_hash=digest, seed=0)
        per_game = games_path(output)
        write_table(_games_table(cells, games), per_game, GAMES_SPEC, config_hash=digest, seed=0)
        paired = versus_baseline(cells, games)
        metrics: dict[str, float] = {"cells": len(cells), "wall_s": wall}
        for r in results:
            base = _metric_name(r.deck, r.h0, r.scientist)
            metrics[f"{base}/mean_guesses"] = r.mean_guesses
            metrics[f"{base}/dnf_rate"] = r.dnf_rate
            metrics[f"{base}/guesses_per_s"] = r.guesses_per_s
            if np.isfinite(r.regret):
                metrics[f"{base}/regret"] = r.regret
            if np.isfinite(r.pseudo_regret):
                metrics[f"{base}/pseudo_regret"] = r.pseudo_regret
            if (r.deck, r.h0, r.scientist) in paired:
                mean, low, high = paired[(r.deck, r.h0, r.scientist)]
                metrics[f"{base}/minus_baseline"] = mean
                metrics[f"{base}/minus_baseline_low"] = low
                metrics[f"{base}/minus_baseline_high"] = high
        metrics.update(oracle_ratios(results))
        mlrun.log_metrics(metrics)
        rows = [
            [
                r.deck,
                r.h0,
                r.scientist,
                f"{r.mean_guesses:,.1f} ± {r.stderr:,.1f}",
                f"{r.oracle_expected:,.1f}",
                f"{r.dnf_rate:.2f}",
                f"{r.guesses_per_s:,.0f}",
                _paired_text(paired.get((r.deck, r.h0, r.scientist))),
            ]
            for r in results
        ]
        text = print_table(
            "Eleusis: guesses per game",
            ["deck", "H0", "scientist", "mean ± s.e.", "oracle E", "DNF", "guesses/s",
             f"- {BASELINE} (95%)"],
            rows,
        )  # fmt: skip
        mlrun.log_text(text, "summary.txt")
        mlrun.log_artifact(output, "data")
        mlrun.log_artifact(per_game, "data")
        with tempfile.TemporaryDirectory() as tmp:
            ratio: dict[str, list[float]] = {s: [] for s in scientists}
            labels = []
            for d in job.decks:
                for h in job.h0:
                    labels.append(f"{d} H0={h}")
                    for s in scientists:
                        r = next(x for x in results if (x.deck, x.h0, x.scientist) == (d, h, s))
                        finite = np.isfinite(r.oracle_expected) and r.oracle_expected > 0
                        ratio[s].append(r.mean_guesses / r.oracle_expected if finite else 0.0)
            plot = grouped_bars(
                Path(tmp) / "guesses_vs_oracle.png",
                labels,
                ratio,
                "Mean guesses / oracle expected (0 = deck cannot finish)",
                "mean guesses / oracle's expected guesses",
                "deck and H0 (the scientist's prior strength)",
                reference=(1.0, "as good as the oracle"),
            )
            mlrun.log_artifact(plot)
    print_locations({"results": output, "games": per_game}, job.tracking.uri, mlrun.run_id)
    return {"output": output, "run_id": mlrun.run_id, "results": results, "metrics": metrics}
