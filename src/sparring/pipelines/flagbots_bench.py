"""The ``flagbots_bench`` pipeline: FlagBots searchers measured and matched as Ray tasks.

Part 1 counts nodes to fixed depths for every searcher on a suite of positions (ratio of the
leaves to the minimal tree, effective branching factor, nodes/s) and the depth each reaches in
the time budget. Part 2 plays a round robin between fixed-depth players (both colours, several
seeds) and turns the results into Elo with 95% intervals. Everything goes to Parquet
(``<output_dir>/nodes.parquet``, ``games.parquet`` when players met), MLflow (metrics, the
tables in ``summary.txt``, the Parquet files under ``data/``) and the console. The tables and
metrics are ``sparring.flagbots.tables``'s; this body runs the tasks and records them.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from sparring.config.flagbots_bench import FlagBotsBenchConfig
from sparring.flagbots.bench import count_nodes, depth_in_budget, play_pairing
from sparring.flagbots.match import GameResult, pairings, standings
from sparring.flagbots.tables import (
    GAMES_SPEC,
    NODES_SPEC,
    bench_metrics,
    node_count_items,
    result_tables,
)
from sparring.frame.session import pipeline_session, results_hash
from sparring.runtime.ray.parallel import parallel_map

__all__ = ["run"]


def run(job: FlagBotsBenchConfig) -> dict[str, Any]:
    """Run the benchmark; returns the MLflow run id, the metrics (``bench_metrics`` and
    ``wall_s``), the node counts, the depth each searcher reaches in the budget
    (``budget``), the games and the standings (Elo with intervals)."""
    players = job.match.parsed
    with pipeline_session(job, "flagbots_bench") as session:
        out = session.output("results", session.locate(job.output_dir))
        out.check_writable()  # one line now, not after the benchmark has run
        start = time.perf_counter()
        items = node_count_items(job.positions, job.searchers, job.depths, job.minimax_max_depth)
        nodes = parallel_map(
            count_nodes,
            items,
            shared={"memory_mb": job.memory_mb},
            description=f"search: {len(items)} node counts",
            num_cpus=1,
        )
        budget = parallel_map(
            depth_in_budget,
            [str(s) for s in job.searchers],
            shared={"time_s": job.time_s, "memory_mb": job.memory_mb},
            description="search: depth in the time budget",
            num_cpus=2,
        )
        games = []
        if players:
            games = parallel_map(
                play_pairing,
                pairings(list(players), job.match.seeds),
                shared={"players": players, "opening_plies": job.match.opening_plies},
                description="search: round robin",
            )
        table = standings([GameResult(**g) for g in games], list(players))
        digest = results_hash(job)
        session.write(NODES_SPEC, nodes, out / "nodes.parquet", config_hash=digest, seed=0)
        if games:
            session.write(GAMES_SPEC, games, out / "games.parquet", config_hash=digest, seed=0)
        metrics = {"wall_s": time.perf_counter() - start}
        metrics.update(bench_metrics(nodes, budget, table, job.time_s))
        session.log_metrics({k: v for k, v in metrics.items() if np.isfinite(v)})
        text = "".join(session.table(*t) for t in result_tables(nodes, budget, table, job.time_s))
        session.run.log_text(text, "summary.txt")
        for name in ("nodes.parquet", "games.parquet"):  # (games too if an earlier run left it)
            if (out / name).exists():
                session.run.log_artifact(out / name, "data")
    return session.results(metrics, nodes=nodes, budget=budget, games=games, standings=table)
