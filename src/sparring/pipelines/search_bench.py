"""The ``search_bench`` pipeline: FlagBots searchers measured and matched as Ray tasks.

Part 1 counts nodes to fixed depths for every searcher on a suite of positions (ratio of the
leaves to the minimal tree, effective branching factor, nodes/s) and the depth each reaches in
the time budget. Part 2 plays a round robin between fixed-depth players (both colours, several
seeds) and turns the results into Elo with 95% intervals. Everything goes to Parquet and MLflow.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict
from typing import Any

import numpy as np
import pyarrow as pa

from sparring.config.search_bench import SearchBenchConfig
from sparring.flagbots.engine import SEARCHERS, Engine, searcher
from sparring.flagbots.game import Position
from sparring.flagbots.match import pairings, play_game, standings
from sparring.flagbots.rules import FlagBotsConfig
from sparring.reporting.console import print_locations, print_table
from sparring.runtime import storage
from sparring.runtime.config import config_hash, to_container
from sparring.runtime.datasets import DatasetSpec, write_table
from sparring.runtime.parallel import parallel_map
from sparring.runtime.ray_session import init_ray
from sparring.runtime.storage import locate
from sparring.runtime.tracking import tracked_run
from sparring.seeding import task_rng

NODES_SPEC = DatasetSpec(
    "search_nodes",
    1,
    pa.schema(
        [
            ("position", pa.string()),
            ("searcher", pa.string()),
            ("depth", pa.int64()),
            ("nodes", pa.int64()),
            ("leaves", pa.int64()),
            ("branching", pa.int64()),
            ("minimal_leaves", pa.int64()),
            ("ratio_to_minimal", pa.float64()),
            ("ebf", pa.float64()),
            ("nps", pa.float64()),
            ("seconds", pa.float64()),
        ]
    ),
)
GAMES_SPEC = DatasetSpec(
    "search_games",
    1,
    pa.schema(
        [
            ("south", pa.string()),
            ("north", pa.string()),
            ("seed", pa.int64()),
            ("result", pa.int64()),
            ("reason", pa.string()),
            ("plies", pa.int64()),
        ]
    ),
)


def suite_position(name: str) -> tuple[FlagBotsConfig, np.ndarray]:
    """The fixed positions: the start, a mid-game (12 seeded random plies), the wall map."""
    if name == "wall_start":
        cfg = FlagBotsConfig.wall_row()
        return cfg, Position(cfg).st
    pos = Position()
    if name == "midgame":
        rng = task_rng(0, "midgame")
        for _ in range(12):
            pos.apply_action(int(rng.choice(pos.legal_actions(prune_destructs=True))))
    return pos.cfg, pos.st


def count_nodes(item: tuple[str, str, int], memory_mb: int) -> dict:
    """One task: a searcher to a fixed depth on a suite position."""
    position, kind, depth = item
    cfg, st = suite_position(position)
    engine = Engine(cfg, searcher(kind, memory_mb=memory_mb))
    engine.search(st, depth=1, time_s=None)  # compile and warm up outside the measurement
    r = engine.search(st, depth=depth, time_s=None)
    b = len(Position(cfg).legal_actions()) if position != "midgame" else None
    if b is None:
        pos = Position(cfg)
        pos.st = st.copy()
        b = len(pos.legal_actions())
    minimal = b ** math.ceil(depth / 2) + b ** (depth // 2) - 1
    return {
        "position": position,
        "searcher": kind,
        "depth": depth,
        "nodes": r.nodes,
        "leaves": r.leaves,
        "branching": b,
        "minimal_leaves": minimal,
        "ratio_to_minimal": r.leaves / minimal,
        "ebf": r.branching,
        "nps": r.nps,
        "seconds": r.seconds,
    }


def depth_in_budget(kind: str, time_s: float, memory_mb: int) -> dict:
    """One task: the depth a searcher completes from the start within the time budget."""
    cfg, st = suite_position("start")
    engine = Engine(cfg, searcher(kind, memory_mb=memory_mb))
    engine.search(st, depth=1, time_s=None)
    r = engine.search(st, time_s=time_s)
    return {
        "searcher": kind,
        "depth": r.depth,
        "nodes": r.nodes,
        "nps": r.nps,
        "seconds": r.seconds,
    }


def play_pairing(item: tuple[str, str, int], players: dict, opening_plies: int) -> dict:
    """One task: one game between two players (``Player``: fixed depth or time budget)."""
    south, north, seed = item
    configs = {n: players[n].engine(n) for n in (south, north)}
    depths = {n: players[n].depth for n in (south, north) if players[n].depth}
    result = play_game(
        FlagBotsConfig(), configs[south], configs[north], seed, depths, opening_plies
    )
    return asdict(result)


def run(job: SearchBenchConfig) -> dict[str, Any]:
    """Run the benchmark; returns the MLflow run id, the node counts, the depth each searcher
    reaches in the budget, the games and the standings (Elo with intervals)."""
    init_ray(job.ray)
    storage.configure(job.storage)
    out = locate(job.output_dir)
    players = job.match.parsed
    chash = config_hash(
        {k: v for k, v in to_container(job).items() if k not in ("ray", "tracking")}
    )
    with tracked_run(job, "search_bench") as mlrun:
        start = time.perf_counter()
        items = [
            (p, s, d)
            for p in [str(p) for p in job.positions]
            for s in [str(s) for s in job.searchers]
            for d in job.depths
            if not (SEARCHERS[s].name == "minimax" and d > job.minimax_max_depth)
        ]
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
        table = standings([_as_result(g) for g in games], list(players))
        write_table(
            pa.Table.from_pylist(nodes, schema=NODES_SPEC.schema),
            out / "nodes.parquet",
            NODES_SPEC,
            config_hash=chash,
            seed=0,
        )
        if games:
            write_table(
                pa.Table.from_pylist(games, schema=GAMES_SPEC.schema),
                out / "games.parquet",
                GAMES_SPEC,
                config_hash=chash,
                seed=0,
            )
        metrics: dict[str, float] = {"wall_s": time.perf_counter() - start}
        for r in nodes:
            base = f"{r['position']}/{r['searcher']}/d{r['depth']}"
            metrics[f"{base}/nodes"] = r["nodes"]
            metrics[f"{base}/ratio_to_minimal"] = r["ratio_to_minimal"]
            metrics[f"{base}/nps"] = r["nps"]
        for r in budget:
            metrics[f"depth_in_{job.time_s:g}s/{r['searcher']}"] = r["depth"]
            metrics[f"nps_start/{r['searcher']}"] = r["nps"]
        for r in table:
            metrics[f"elo/{r['searcher']}"] = r["elo"]
            metrics[f"score/{r['searcher']}"] = r["score"]
        mlrun.log_metrics({k: v for k, v in metrics.items() if np.isfinite(v)})
        text = print_table(
            f"Depth within {job.time_s:g} s from the start",
            ["searcher", "depth", "nodes", "nodes/s"],
            [[r["searcher"], r["depth"], f"{r['nodes']:,}", f"{r['nps']:,.0f}"] for r in budget],
        )
        deepest: dict[tuple[str, str], dict[str, Any]] = {}
        for r in nodes:
            key = (r["position"], r["searcher"])
            if r["depth"] >= deepest.get(key, {"depth": 0})["depth"]:
                deepest[key] = r
        text += print_table(
            "Nodes at the deepest fixed depth",
            ["position", "searcher", "depth", "nodes", "leaves / minimal", "EBF"],
            [
                [
                    r["position"],
                    r["searcher"],
                    r["depth"],
                    f"{r['nodes']:,}",
                    f"{r['ratio_to_minimal']:.2f}",
                    f"{r['ebf']:.2f}",
                ]
                for r in deepest.values()
            ],
        )
        if table:
            text += print_table(
                "Round robin (Elo from the score against the field, 95% CI)",
                ["player", "W", "D", "L", "score", "Elo", "95% CI"],
                [
                    [
                        r["searcher"],
                        r["wins"],
                        r["draws"],
                        r["losses"],
                        f"{r['score']:.2f}",
                        f"{r['elo']:+.0f}",
                        f"[{r['elo_low']:+.0f}, {r['elo_high']:+.0f}]",
                    ]
                    for r in table
                ],
            )
        mlrun.log_text(text, "summary.txt")
        for name in ("nodes.parquet", "games.parquet"):
            if (out / name).exists():
                mlrun.log_artifact(out / name, "data")
    print_locations({"results": out}, job.tracking.uri, mlrun.run_id)
    return {
        "run_id": mlrun.run_id,
        "metrics": metrics,
        "nodes": nodes,
        "budget": budget,
        "games": games,
        "standings": table,
    }


def _as_result(game: dict):
    from sparring.flagbots.match import GameResult

    return GameResult(**game)
