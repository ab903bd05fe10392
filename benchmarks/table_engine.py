"""Fixed-limit hold'em hands per second per core, and deal generation per second per core.

    python benchmarks/table_engine.py [--quick]

Engine: a 10-seat table (tight-aggressive player 0 vs the mixed baseline table) over full
rotation sets (100 hands per deal), our numba kernel against our own pure-Python reference
(``sparring.poker.table.play_hand_reference``, the same rules step by step) playing the same
hands with the same decisions. pokerkit is not used as the baseline: its fixed-limit game has no
hook to play our precomputed-equity policies without re-evaluating hands, so it would not play
the same decisions. Deal generation: ``generate_deals`` at the default 2,000 equity trials.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import best_rate, parser, report

from sparring.poker.bots import baseline, baseline_table
from sparring.poker.deal_generation import generate_deals
from sparring.poker.engine import play_deals
from sparring.poker.table import play_hand_reference, seating


def main() -> None:
    args = parser(__doc__).parse_args()
    n_deals = 200 if args.quick else 1000
    n_gen = 20 if args.quick else 100
    generate_deals(0, 1, 10, 2000, seed=1)  # compile outside the timing
    start = time.perf_counter()
    deals, _ = generate_deals(0, n_gen, 10, 2000, seed=1)
    gen_rate = n_gen / (time.perf_counter() - start)
    if n_deals > n_gen:  # more deals for the engine, with cheap equities (play does not care)
        extra, _ = generate_deals(n_gen, n_deals - n_gen, 10, 50, seed=1)
        from sparring.poker.deal_generation import DealSet

        deals = DealSet.concat([deals, extra])
    players = np.concatenate([baseline("tight_aggressive")[None], baseline_table("mixed", 9)])
    play_deals(deals.equity[:1], deals.strength[:1], players)
    ours = best_rate(lambda: play_deals(deals.equity, deals.strength, players).hands)

    ref_deals = 3 if args.quick else 10

    def reference() -> int:
        for d in range(ref_deals):
            for r in range(100):
                seat_hole, seat_player = seating(10, r)
                play_hand_reference(
                    deals.equity[d], deals.strength[d], seat_hole, seat_player, players
                )
        return ref_deals * 100

    ref = best_rate(reference, repeats=2)
    report(
        "table engine (10 seats, full rotations, one core)",
        [
            ("sparring play_deals (numba), hands/s", ours, f"{n_deals:,} deals x 100 hands"),
            ("pure-Python reference, hands/s", ref, f"ours is {ours / ref:,.0f}x"),
            ("handgen deals/s (2,000 equity trials)", gen_rate, f"{n_gen} deals, 10 seats"),
        ],
        {
            "ours_hands_per_s": round(ours),
            "reference_hands_per_s": round(ref),
            "ratio_vs_reference": round(ours / ref, 1),
            "goal_hands_per_s": 300_000,
            "handgen_deals_per_s_per_core": round(gen_rate, 1),
            "quick": args.quick,
        },
    )


if __name__ == "__main__":
    main()
