"""The search benchmark's metrics and result tables from small constructed measurements."""

from __future__ import annotations

import math

import pyarrow as pa
import pytest

from sparring.flagbots.match import GameResult, standings
from sparring.flagbots.tables import (
    GAMES_SPEC,
    NODES_SPEC,
    bench_metrics,
    deepest,
    minimal_leaves,
    node_count_items,
    result_tables,
)


def node(position, searcher, depth, nodes, ratio, ebf=float("nan"), nps=1000.0):
    return {
        "position": position,
        "searcher": searcher,
        "depth": depth,
        "nodes": nodes,
        "leaves": nodes // 2,
        "branching": 48,
        "minimal_leaves": 95,
        "ratio_to_minimal": ratio,
        "ebf": ebf,
        "nps": nps,
        "seconds": 0.5,
    }


NODES = [
    node("start", "minimax", 1, 48, 1.0),
    node("start", "minimax", 2, 2352, 24.5),
    node("start", "full", 1, 48, 1.0),
    node("start", "full", 2, 130, 1.2, ebf=7.25),
    node("midgame", "full", 1, 40, 1.0),
]
BUDGET = [{"searcher": "full", "depth": 5, "nodes": 12345, "nps": 24690.4, "seconds": 0.5}]
GAMES = [  # d2 beats d1 with South, draws with North
    GameResult("d1", "d2", 0, -1, "flag", 30),
    GameResult("d2", "d1", 0, 0, "moves", 200),
]
STANDINGS = standings(GAMES, ["d1", "d2", "idle"])


def test_minimal_leaves_is_knuth_and_moore():
    assert minimal_leaves(48, 1) == 48 + 1 - 1
    assert minimal_leaves(48, 2) == 48 + 48 - 1
    assert minimal_leaves(10, 3) == 100 + 10 - 1
    assert minimal_leaves(10, 4) == 100 + 100 - 1


def test_node_counts_stop_plain_minimax_at_its_depth_limit():
    items = node_count_items(["start", "midgame"], ["minimax", "full"], [1, 2, 3], 2)
    assert items == [
        ("start", "minimax", 1),
        ("start", "minimax", 2),
        ("start", "full", 1),
        ("start", "full", 2),
        ("start", "full", 3),
        ("midgame", "minimax", 1),
        ("midgame", "minimax", 2),
        ("midgame", "full", 1),
        ("midgame", "full", 2),
        ("midgame", "full", 3),
    ]


def test_metrics_name_every_count_depth_and_player():
    metrics = bench_metrics(NODES[:2], BUDGET, STANDINGS, 0.25)
    assert metrics == {
        "start/minimax/d1/nodes": 48,
        "start/minimax/d1/ratio_to_minimal": 1.0,
        "start/minimax/d1/nps": 1000.0,
        "start/minimax/d2/nodes": 2352,
        "start/minimax/d2/ratio_to_minimal": 24.5,
        "start/minimax/d2/nps": 1000.0,
        "depth_in_0.25s/full": 5,
        "nps_start/full": 24690.4,
        "elo/d1": metrics["elo/d1"],
        "score/d1": 0.25,
        "elo/d2": metrics["elo/d2"],
        "score/d2": 0.75,
        "elo/idle": metrics["elo/idle"],
        "score/idle": metrics["score/idle"],
    }
    assert metrics["elo/d2"] == pytest.approx(-metrics["elo/d1"])  # a 0.75 score: +191 Elo
    assert round(metrics["elo/d2"]) == 191
    assert math.isnan(metrics["elo/idle"]) and math.isnan(metrics["score/idle"])


def test_deepest_keeps_each_searchers_deepest_count_in_first_seen_order():
    rows = deepest(NODES)
    assert [(r["position"], r["searcher"], r["depth"]) for r in rows] == [
        ("start", "minimax", 2),
        ("start", "full", 2),
        ("midgame", "full", 1),
    ]


def test_result_tables_format_the_budget_the_deepest_counts_and_the_round_robin():
    budget, nodes, robin = result_tables(NODES, BUDGET, STANDINGS, 0.25)
    assert budget == (
        "Depth within 0.25 s from the start",
        ["searcher", "depth", "nodes", "nodes/s"],
        [["full", 5, "12,345", "24,690"]],
    )
    title, columns, rows = nodes
    assert title == "Nodes at the deepest fixed depth"
    # an iterative searcher's leaves are those of every iteration, and the column says so
    leaves = "leaves (every iteration) / minimal"
    assert columns == ["position", "searcher", "depth", "nodes", leaves, "EBF"]
    assert rows == [
        ["start", "minimax", 2, "2,352", "24.50", "nan"],
        ["start", "full", 2, "130", "1.20", "7.25"],
        ["midgame", "full", 1, "40", "1.00", "nan"],
    ]
    title, columns, rows = robin
    assert title == "Round robin (Elo from the score against the field, 95% CI)"
    assert columns == ["player", "W", "D", "L", "score", "Elo", "95% CI"]
    assert rows[0][:6] == ["d1", 0, 1, 1, "0.25", "-191"]
    assert rows[1][:6] == ["d2", 1, 1, 0, "0.75", "+191"]
    assert rows[2][:6] == ["idle", 0, 0, 0, "nan", "+nan"]
    assert rows[1][6] == "[-191, +191]"  # two games: the interval clipped to the sweeps


def test_no_round_robin_table_without_players():
    assert len(result_tables(NODES, BUDGET, [], 0.2)) == 2


def test_the_rows_fit_their_dataset_contracts():
    from dataclasses import asdict

    assert pa.Table.from_pylist(NODES, schema=NODES_SPEC.schema).num_rows == len(NODES)
    games = [asdict(g) for g in GAMES]
    assert pa.Table.from_pylist(games, schema=GAMES_SPEC.schema).to_pylist() == games
