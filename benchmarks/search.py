"""FlagBots search: nodes per second per core and depth reached in 2 s from the start.

    python benchmarks/search.py [--quick]

Every searcher configuration of the engine against the plain minimax configuration in the same
run, plus the generic pure-Python alpha-beta (``sparring.search.alphabeta``) on the same
position as the interpreted baseline.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import parser, report

from sparring.search.alphabeta import negamax
from sparring.search.engine import SEARCHERS, Engine, evaluate, searcher
from sparring.search.flagbots import FlagBotsConfig
from sparring.search.game import Position


class _PyGame(Position):
    def evaluate(self) -> float:
        return float(evaluate(self.st))


def main() -> None:
    args = parser(__doc__).parse_args()
    budget = 0.5 if args.quick else 2.0
    cfg = FlagBotsConfig()
    start = Position(cfg).st
    rows, figures = [], {"budget_s": budget, "quick": args.quick}
    base = None
    for kind in SEARCHERS:
        engine = Engine(cfg, searcher(kind))
        r = engine.search(start, time_s=budget)
        base = base or r.nps
        rows.append(
            (
                f"{kind}: nodes/s",
                r.nps,
                f"depth {r.depth} in {budget:g} s, {r.nps / base:.2f}x minimax's speed",
            )
        )
        figures[f"{kind}_nps"] = round(r.nps)
        figures[f"{kind}_depth_in_budget"] = r.depth
    game = _PyGame(cfg)
    counter = [0]
    t = time.perf_counter()
    negamax(game, 3, counter=counter)
    py_rate = counter[0] / (time.perf_counter() - t)
    rows.append(
        (
            "pure-Python alpha-beta: leaves/s",
            py_rate,
            f"engine minimax is {base / py_rate:,.0f}x faster",
        )
    )
    figures["python_alphabeta_leaves_per_s"] = round(py_rate)
    figures["ratio_engine_vs_python"] = round(base / py_rate, 1)
    report("search (FlagBots start position, one core)", rows, figures)


if __name__ == "__main__":
    main()
