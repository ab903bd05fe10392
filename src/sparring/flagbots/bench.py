"""The search benchmark's Ray tasks: node counts to a fixed depth, the depth reached in a time
budget, and one game of the round robin, each on FlagBots' fixed suite of positions.

They live in the game's room, not in the pipeline body, so a worker that runs them imports the
engine only (the body imports MLflow and Hydra: ~1.5 s of CPU for every new worker).
"""

from __future__ import annotations

from dataclasses import asdict

import numpy as np

from sparring.flagbots.engine import Engine
from sparring.flagbots.game import Position
from sparring.flagbots.match import play_game
from sparring.flagbots.rules import FlagBotsConfig
from sparring.flagbots.searchers import searcher
from sparring.flagbots.tables import minimal_leaves
from sparring.seeding import task_rng

__all__ = ["count_nodes", "depth_in_budget", "play_pairing", "suite_position"]


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
    minimal = minimal_leaves(b, depth)
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
