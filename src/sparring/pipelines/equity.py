"""The ``equity`` pipeline: the preflop table (169 classes x opponent counts) as Ray tasks.

One task per class computes its cells for every requested opponent count; each cell's random
stream is keyed by (seed, class, opponents), so the table is the same for any number of
workers. The result goes to ``output`` as a ``preflop_equity`` Parquet file; a rerun with the
same config reuses it.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pyarrow as pa

from sparring.config.equity import EquityConfig
from sparring.frame.session import pipeline_session
from sparring.poker.preflop import (
    CLASS_INDEX,
    PREFLOP_SPEC,
    class_rows,
    table_from_arrow,
)
from sparring.reporting.console import console, print_table
from sparring.runtime.ray.parallel import parallel_map
from sparring.runtime.storage.datasets import is_reusable, read_table


def run(job: EquityConfig) -> dict[str, Any]:
    """Run the pipeline; returns the output path, the MLflow run id and the metrics
    (``cells``, ``trials_per_s``, ``mean_stderr``, ...)."""
    with pipeline_session(job, "equity", tags={"data_hash": job.data_hash}) as session:
        output = session.output("preflop table", session.locate(job.output))
        reused = not job.force and is_reusable(output, PREFLOP_SPEC, job.data_hash)
        start = time.perf_counter()
        if reused:
            console.print(f"reusing {output} (made from the same config)")
            table = read_table(output, PREFLOP_SPEC)
        else:
            output.parent.check_writable()  # one line now, not after every cell is computed
            chunks = parallel_map(
                class_rows,
                job.class_names,
                shared={"opponents": job.opponent_counts, "trials": job.trials, "seed": job.seed},
                description=(
                    f"equity: {len(job.class_names)} classes x {len(job.opponent_counts)} opponents"
                ),
            )
            rows = [row for chunk in chunks for row in chunk]
            table = session.write(
                PREFLOP_SPEC,
                rows,
                output,
                config_hash=job.data_hash,
                seed=job.seed,
                extra={"trials": job.trials},
            )
        wall = time.perf_counter() - start
        metrics = _metrics(table, wall, session.cores, reused)
        session.log_metrics(metrics)
        session.run.log_text(_summary(table, job.opponent_counts), "summary.txt")
        session.run.log_artifact(output, "data")
        session.run.log_dataset(
            "preflop-equity",
            str(output),
            job.data_hash,
            "output",
            rows=table.num_rows,
            trials=job.trials,
        )
    return session.results(metrics, output=output)


def _metrics(table: pa.Table, wall: float, cores: int, reused: bool) -> dict[str, float]:
    total_trials = int(np.sum(table.column("trials").to_numpy()))
    metrics = {
        "cells": table.num_rows,
        "reused": float(reused),
        "wall_s": wall,
        "mean_stderr": float(np.mean(table.column("stderr").to_numpy())),
        "cpus": cores,
    }
    if not reused:
        metrics["trials_per_s"] = total_trials / wall
        metrics["trials_per_s_per_core"] = total_trials / wall / cores
    return metrics


def _summary(table: pa.Table, opponents: tuple[int, ...]) -> str:
    grid = table_from_arrow(table)
    present = set(table.column("class").to_pylist())
    show = [c for c in ("AA", "KK", "AKs", "AKo", "JTs", "77", "T9o", "72o") if c in present]
    show = show or sorted(present, key=lambda c: CLASS_INDEX[c])[:8]
    cols = [k for k in opponents if k in (1, 2, 3, 5, 9)] or list(opponents[:5])
    rows = [[c] + [f"{grid[CLASS_INDEX[c], k]:.4f}" for k in cols] for c in show]
    return print_table("Preflop equity", ["class"] + [f"vs {k}" for k in cols], rows)
