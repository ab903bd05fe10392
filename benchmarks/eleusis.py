"""Eleusis scientists: guesses per second and mean guesses against the oracle on a fixed suite.

    python benchmarks/eleusis.py [--quick] [--h0 1000] [--seeds 40] [--scientists a b ...]

Suite: the easy decks spike 0.5 and suit x rank 0.7/0.5 and the adversarial best != mode deck,
H0 = 100 (or --h0), the same seeds (deck instances and card streams) for every scientist. The
oracle's figure is its exact expected number of guesses (policy evaluation), averaged over the
decks.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import parser, report

from sparring.eleusis.bench import run_cell
from sparring.eleusis.scientists import NAMES

SUITE = ("spike:alpha=0.5", "suit_rank:suit=0.7,rank=0.5", "best_ne_mode")


def main() -> None:
    cli = parser(__doc__)
    cli.add_argument("--h0", type=int, default=100, help="starting harma (default 100)")
    cli.add_argument("--seeds", type=int, default=None, help="games per cell (default 200)")
    cli.add_argument("--scientists", nargs="*", default=list(NAMES), help="scientist specs")
    args = cli.parse_args()
    seeds = args.seeds or (20 if args.quick else 200)
    h0 = args.h0
    names = list(dict.fromkeys([*args.scientists, "oracle"]))
    run_cell((SUITE[0], 100, "frequency"), seeds=1, cap=1000)  # compile outside the timing
    rows, figures = [], {"seeds": seeds, "h0": h0, "quick": args.quick}
    for deck in SUITE:
        cells = {name: run_cell((deck, h0, name), seeds=seeds, cap=1_000_000) for name in names}
        oracle = cells["oracle"].oracle_expected
        for name, cell in cells.items():
            ratio = cell.mean_guesses / oracle
            rows.append(
                (
                    f"{deck} / {name}: mean guesses",
                    cell.mean_guesses,
                    f"± {cell.stderr:,.1f}, {ratio:.2f}x oracle E, "
                    f"{cell.guesses_per_s:,.0f} guesses/s",
                )
            )
            figures[f"{deck}|{name}|ratio_to_oracle"] = round(ratio, 3)
            figures[f"{deck}|{name}|guesses_per_s"] = round(cell.guesses_per_s)
        figures[f"{deck}|oracle_expected"] = round(oracle, 1)
    report(f"eleusis scientists (H0 = {h0})", rows, figures)


if __name__ == "__main__":
    main()
