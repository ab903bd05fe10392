"""Mus: complete hands per second per core with four synthetic players, against random legal
players through the same engine.

    python benchmarks/mus_engine.py [--quick]

Both play whole matches (decision log on); the percentile cache the synthetic players use is
filled before the timing (it is filled once per process, ~2 s).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import parser, report

from sparring.mus.game import MusGame
from sparring.mus.log import play_match
from sparring.mus.players import RandomPlayer, SyntheticPlayer, mid_percentile
from sparring.mus.strength import multisets


def hands_per_second(make_players, matches: int) -> tuple[float, int]:
    game = MusGame()
    start, hands = time.perf_counter(), 0
    for m in range(matches):
        state, _ = play_match(game, make_players(m), seed=m, match_id=m)
        hands += state.hand_number
    return hands / (time.perf_counter() - start), hands


def main() -> None:
    args = parser(__doc__).parse_args()
    matches = 20 if args.quick else 200
    for lance in ("grande", "chica", "pares", "juego", "punto"):
        for m in multisets(True):
            mid_percentile(lance, m, True)
    synth, n_synth = hands_per_second(
        lambda m: [SyntheticPlayer.with_rates(seed=4 * m + i) for i in range(4)], matches
    )
    rand, n_rand = hands_per_second(lambda m: [RandomPlayer(4 * m + i) for i in range(4)], matches)
    report(
        "mus engine (complete hands, one core)",
        [
            ("synthetic players, hands/s", synth, f"{n_synth:,} hands in {matches} matches"),
            (
                "random legal players, hands/s",
                rand,
                f"{n_rand:,} hands; synthetic/random {synth / rand:.2f}x",
            ),
        ],
        {
            "synthetic_hands_per_s": round(synth),
            "random_hands_per_s": round(rand),
            "ratio": round(synth / rand, 2),
            "goal_hands_per_s": 2000,
            "quick": args.quick,
        },
    )


if __name__ == "__main__":
    main()
