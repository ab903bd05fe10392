"""The ``eleusis_bench`` pipeline: decks x starting harma x scientists as Ray tasks.

One task per cell plays ``seeds`` games; results go to a Parquet table (one row per cell,
``RESULTS_SPEC``), a second one with every game (``GAMES_SPEC``, beside it: ``games_path``), a
summary table (``summary.txt``), MLflow metrics per cell and a plot of each scientist's guesses
relative to the oracle (``guesses_vs_oracle.png``). When the report's baseline (``frequency``) is
in the grid, every other scientist is compared with it game by game: game i of every cell is the
same deck and card stream, so the paired difference is the fair comparison. What the numbers
mean is ``sparring.eleusis.bench``'s; this body plays the cells and records them.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from sparring.config.eleusis_bench import EleusisBenchConfig
from sparring.eleusis.bench import (
    GAMES_SPEC,
    RESULTS_SPEC,
    SUMMARY_COLUMNS,
    SUMMARY_TITLE,
    CellResult,
    Games,
    cell_metrics,
    game_rows,
    oracle_ratios,
    ratios_to_oracle,
    run_cell_with_games,
    summary_rows,
    versus_baseline,
)
from sparring.frame.session import pipeline_session, results_hash
from sparring.reporting.plots import grouped_bars
from sparring.runtime.ray.parallel import parallel_map
from sparring.runtime.storage.location import Location, locate

__all__ = ["GAMES_SPEC", "RESULTS_SPEC", "games_path", "oracle_ratios", "run"]


def games_path(output: str | Path | Location) -> Location:
    """Where the per-game table goes: next to the results, ``<name>_games.parquet``."""
    output = locate(output)
    stem, dot, suffix = output.name.rpartition(".")
    stem, suffix = (stem, f".{suffix}") if dot and stem else (output.name, ".parquet")
    return output.with_name(f"{stem}_games{suffix}")


def run(job: EleusisBenchConfig) -> dict[str, Any]:
    """Play every cell; returns the MLflow run id, the metrics (``cells``, ``wall_s``, mean
    guesses, DNF rate, regret and the difference with the baseline per cell, the ratios to the
    oracle), the results ``output`` and the ``results`` (a CellResult per cell)."""
    scientists = job.played()
    cells = [(d, h, s) for d in job.decks for h in job.h0 for s in scientists]
    with pipeline_session(job, "eleusis_bench") as session:
        output = session.locate(job.output)
        output.parent.check_writable()  # one line now, not after every cell is computed
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
        digest = results_hash(job)
        rows = [r.as_row() for r in results]
        session.write(RESULTS_SPEC, rows, output, label="results", config_hash=digest, seed=0)
        per_game = games_path(output)
        session.write(GAMES_SPEC, game_rows(cells, games), per_game, label="games",
                      config_hash=digest, seed=0)  # fmt: skip
        paired = versus_baseline(cells, games)
        metrics: dict[str, float] = {"cells": len(cells), "wall_s": wall}
        metrics.update(cell_metrics(results, paired))
        metrics.update(oracle_ratios(results))
        session.log_metrics(metrics)
        session.table(SUMMARY_TITLE, SUMMARY_COLUMNS, summary_rows(results, paired),
                      artifact="summary.txt")  # fmt: skip
        session.run.log_artifact(output, "data")
        session.run.log_artifact(per_game, "data")
        labels, ratio = ratios_to_oracle(results, job.decks, job.h0, scientists)
        session.log_plot(
            lambda directory: grouped_bars(
                directory / "guesses_vs_oracle.png",
                labels,
                ratio,
                "Mean guesses / oracle expected (0 = deck cannot finish)",
                "mean guesses / oracle's expected guesses",
                "deck and H0 (the scientist's prior strength)",
                reference=(1.0, "as good as the oracle"),
            )
        )
    return session.results(metrics, output=output, results=results)
