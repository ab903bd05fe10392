"""Equity trials per second on one core: our kernel vs eval7, in the same run.

    python benchmarks/equity.py [--quick]

10-way (hero vs 9 random hands, preflop): ours against a Monte Carlo loop over eval7's C
evaluator (eval7 has no multiway equity). Heads-up: ours against eval7's own C Monte Carlo
(``py_hand_vs_range_monte_carlo`` against the full range).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import best_rate, parser, report

from sparring.poker.equity import equity


def main() -> None:
    args = parser(__doc__).parse_args()
    trials = 1_000_000 if args.quick else 5_000_000
    lib_trials = 20_000 if args.quick else 100_000
    equity("AsKs", opponents=9, trials=1000)  # compile outside the timing

    def ours(opponents: int):
        return lambda: equity("AsKs", opponents=opponents, trials=trials, seed=1).trials

    ours10, ours2 = best_rate(ours(9)), best_rate(ours(1))

    import eval7

    hero = [eval7.Card("As"), eval7.Card("Ks")]
    rest = [c for c in eval7.Deck().cards if str(c) not in ("As", "Ks")]
    rng = random.Random(1)

    def eval7_loop_10way() -> int:
        for _ in range(lib_trials):
            draw = rng.sample(rest, 5 + 18)
            board = draw[:5]
            mine = eval7.evaluate(hero + board)
            best = max(eval7.evaluate(board + draw[5 + 2 * i : 7 + 2 * i]) for i in range(9))
            _ = 1.0 if mine > best else 0.0
        return lib_trials

    full_range = eval7.HandRange(
        "22+,A2s+,K2s+,Q2s+,J2s+,T2s+,92s+,82s+,72s+,62s+,52s+,42s+,"
        "32s,A2o+,K2o+,Q2o+,J2o+,T2o+,92o+,82o+,72o+,62o+,52o+,42o+,32o"
    )

    def eval7_heads_up() -> int:
        eval7.py_hand_vs_range_monte_carlo(hero, full_range, [], lib_trials * 10)
        return lib_trials * 10

    lib10 = best_rate(eval7_loop_10way)
    lib2 = best_rate(eval7_heads_up)
    report(
        "equity (trials per second, one core)",
        [
            ("sparring 10-way (AsKs vs 9), trials/s", ours10, f"{trials:,} trials"),
            ("eval7 loop 10-way, trials/s", lib10, f"ours is {ours10 / lib10:,.0f}x"),
            ("sparring heads-up (AsKs vs 1), trials/s", ours2, f"{trials:,} trials"),
            ("eval7 C Monte Carlo heads-up, trials/s", lib2, f"ours is {ours2 / lib2:,.1f}x"),
        ],
        {
            "ours_10way_trials_per_s": round(ours10),
            "eval7_loop_10way_trials_per_s": round(lib10),
            "ratio_10way_vs_eval7": round(ours10 / lib10, 1),
            "ours_headsup_trials_per_s": round(ours2),
            "eval7_headsup_trials_per_s": round(lib2),
            "ratio_headsup_vs_eval7": round(ours2 / lib2, 2),
            "goal_10way_trials_per_s": 5_000_000,
            "quick": args.quick,
        },
    )


if __name__ == "__main__":
    main()
