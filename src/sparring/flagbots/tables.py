"""The search benchmark's results in FlagBots' terms: datasets, metrics and result tables.

Pure functions of what the benchmark measured, with no I/O: the node counts (``NODES_SPEC``
rows, one per position x searcher x depth), the depth each searcher reaches in the time budget
(``budget`` rows: searcher, depth, nodes, nps) and the round robin (``GAMES_SPEC`` rows, a
``GameResult`` each, and ``match.standings``). ``node_count_items`` says what to measure,
``bench_metrics`` names the numbers for MLflow and ``result_tables`` gives the printed tables.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pyarrow as pa

from sparring.flagbots.searchers import SEARCHERS
from sparring.runtime.storage.datasets import DatasetSpec

Row = Mapping[str, Any]
Table = tuple[str, list[str], list[list[Any]]]  # title, columns, rows (what a console prints)

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
)  # one row per game: dataclasses.asdict(GameResult)


def node_count_items(
    positions: Iterable[str],
    searchers: Iterable[str],
    depths: Iterable[int],
    minimax_max_depth: int,
) -> list[tuple[str, str, int]]:
    """Every (position, searcher, depth) to count, position by position; plain minimax only
    to ``minimax_max_depth`` (its tree grows too fast beyond)."""
    searchers, depths = [str(s) for s in searchers], list(depths)
    return [
        (p, s, d)
        for p in [str(p) for p in positions]
        for s in searchers
        for d in depths
        if not (SEARCHERS[s].name == "minimax" and d > minimax_max_depth)
    ]


def minimal_leaves(branching: int, depth: int) -> int:
    """The leaves of the minimal tree (Knuth and Moore): what a perfectly ordered alpha-beta
    examines to ``depth`` with ``branching`` moves everywhere."""
    return branching ** math.ceil(depth / 2) + branching ** (depth // 2) - 1


def bench_metrics(
    nodes: Sequence[Row], budget: Sequence[Row], standings: Sequence[Row], time_s: float
) -> dict[str, float]:
    """The MLflow metrics: per node count ``<position>/<searcher>/d<depth>/{nodes,
    ratio_to_minimal,nps}``, per searcher ``depth_in_<time_s>s/<searcher>`` and
    ``nps_start/<searcher>``, per player ``elo/<player>`` and ``score/<player>`` (not all
    finite: a player without games has NaN)."""
    metrics: dict[str, float] = {}
    for r in nodes:
        base = f"{r['position']}/{r['searcher']}/d{r['depth']}"
        metrics[f"{base}/nodes"] = r["nodes"]
        metrics[f"{base}/ratio_to_minimal"] = r["ratio_to_minimal"]
        metrics[f"{base}/nps"] = r["nps"]
    for r in budget:
        metrics[f"depth_in_{time_s:g}s/{r['searcher']}"] = r["depth"]
        metrics[f"nps_start/{r['searcher']}"] = r["nps"]
    for r in standings:
        metrics[f"elo/{r['searcher']}"] = r["elo"]
        metrics[f"score/{r['searcher']}"] = r["score"]
    return metrics


def deepest(nodes: Sequence[Row]) -> list[Row]:
    """Per (position, searcher), in order of first appearance: the row of its deepest depth
    (the last one of that depth)."""
    found: dict[tuple[str, str], Row] = {}
    for r in nodes:
        key = (r["position"], r["searcher"])
        if r["depth"] >= found.get(key, {"depth": 0})["depth"]:
            found[key] = r
    return list(found.values())


def result_tables(
    nodes: Sequence[Row], budget: Sequence[Row], standings: Sequence[Row], time_s: float
) -> list[Table]:
    """The printed results: the depth within the time budget, the nodes at the deepest fixed
    depth and, when players met, the round robin with Elo and its 95% interval."""
    tables: list[Table] = [
        (
            f"Depth within {time_s:g} s from the start",
            ["searcher", "depth", "nodes", "nodes/s"],
            [[r["searcher"], r["depth"], f"{r['nodes']:,}", f"{r['nps']:,.0f}"] for r in budget],
        ),
        (
            "Nodes at the deepest fixed depth",
            ["position", "searcher", "depth", "nodes", "leaves (every iteration) / minimal", "EBF"],
            [
                [
                    r["position"],
                    r["searcher"],
                    r["depth"],
                    f"{r['nodes']:,}",
                    f"{r['ratio_to_minimal']:.2f}",
                    f"{r['ebf']:.2f}",
                ]
                for r in deepest(nodes)
            ],
        ),
    ]
    if standings:
        tables.append(
            (
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
                    for r in standings
                ],
            )
        )
    return tables


__all__ = [
    "GAMES_SPEC",
    "NODES_SPEC",
    "bench_metrics",
    "deepest",
    "minimal_leaves",
    "node_count_items",
    "result_tables",
]
