"""The Mus player model: what modelling buys and what it costs, against the control.

    python benchmarks/player_model.py [--quick]

ModelingBot (seats 0, 2) and the same bot with the model off (the control) each play a series
of games against a heavy bluffer (bets 10 tantos, 80% bluffs) and against a calling station,
with the post-game cycle on a SQLite store between games; game g uses the same seeds in both
arms, so the edge is a paired difference. Reported: tantos per hand won over the opponents and
its 95% interval, match win rates, and complete hands per second (the cost of the model and
the cycle, with the control as the baseline; the percentile cache is filled first, as in
mus_engine.py).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import parser, report

from sparring.modeling.scenarios import match_series, mean_ci
from sparring.mus.players import mid_percentile
from sparring.mus.strength import multisets

OPPONENTS = {
    "heavy_bluffer": {"aggression": 0.6, "bluff_frequency": 0.8, "bet_size": 10},
    "calling_station": {"acceptance_rate": 0.95, "risk_tolerance": 0.6},
}


def main() -> None:
    args = parser(__doc__).parse_args()
    games = 40 if args.quick else 300
    for lance in ("grande", "chica", "pares", "juego", "punto"):  # the percentile cache, ~2 s
        for m in multisets(True):
            mid_percentile(lance, m, True)
    match_series(OPPONENTS["heavy_bluffer"], True, 1, seed=99)
    rows, figures = [], {"games": games, "quick": args.quick}
    for name, profile in OPPONENTS.items():
        runs, speed = {}, {}
        for arm in ("model", "control"):
            start = time.perf_counter()
            runs[arm] = match_series(profile, arm == "model", games, seed=0)
            speed[arm] = runs[arm].hands / (time.perf_counter() - start)
        model, control = runs["model"], runs["control"]
        edge, low, high = mean_ci(np.array(model.margins) - np.array(control.margins))
        ratio = speed["model"] / speed["control"]
        rows += [
            (f"{name}: edge, tantos/hand", edge, f"95% [{low:+.2f}, {high:+.2f}], paired"),
            (
                f"{name}: win rate model",
                float(np.mean(model.wins)),
                f"control {np.mean(control.wins):.2f}",
            ),
            (
                f"{name}: hands/s model",
                speed["model"],
                f"control {speed['control']:,.0f} ({ratio:.2f}x)",
            ),
        ]
        figures |= {
            f"{name}|edge": round(edge, 3),
            f"{name}|edge_low": round(low, 3),
            f"{name}|edge_high": round(high, 3),
            f"{name}|win_model": round(float(np.mean(model.wins)), 3),
            f"{name}|win_control": round(float(np.mean(control.wins)), 3),
            f"{name}|hands_per_s_model": round(speed["model"]),
            f"{name}|hands_per_s_control": round(speed["control"]),
        }
    report("player model: ModelingBot vs control", rows, figures)


if __name__ == "__main__":
    main()
