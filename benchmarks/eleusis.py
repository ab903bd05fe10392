"""Eleusis scientists: guesses per second and mean guesses against the oracle on a fixed suite.

    python benchmarks/eleusis.py [--quick] [--h0 1000] [--seeds 40] [--scientists a b ...]

Suite: the easy decks spike 0.5 and suit x rank 0.7/0.5 and the adversarial best != mode deck,
H0 = 100 (or --h0), the same seeds (deck instances and card streams) for every scientist. The
oracle's figure is its exact expected number of guesses (policy evaluation), averaged over the
decks. Each learner is also compared with the report's baseline game by game (same seeds): the
mean difference in guesses with its 95% interval.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import parser, report

from sparring.eleusis.bench import BASELINE, play_games, run_cell, summarise, versus_baseline
from sparring.eleusis.roster import LEARNERS, NAMES

# deck -> games per cell: the easy decks' games are short and their differences small (a few
# guesses in 180), so they get more games; best != mode games run to ~1000-200,000 guesses.
SUITE = {"spike:alpha=0.5": 2000, "suit_rank:suit=0.7,rank=0.5": 2000, "best_ne_mode": 200}


def main() -> None:
    cli = parser(__doc__)
    cli.add_argument("--h0", type=int, default=100, help="starting harma (default 100)")
    cli.add_argument(
        "--seeds",
        type=int,
        default=None,
        help="games per cell (default 2000 easy, 200 best != mode)",
    )
    cli.add_argument("--scientists", nargs="*", default=list(NAMES), help="scientist specs")
    args = cli.parse_args()
    games_per_deck = {
        deck: args.seeds or (20 if args.quick else default) for deck, default in SUITE.items()
    }
    h0 = args.h0
    names = list(dict.fromkeys([*args.scientists, "oracle"]))
    run_cell((next(iter(SUITE)), 100, "frequency"), seeds=1, cap=1000)  # compile, untimed
    rows, figures = [], {"seeds": games_per_deck, "h0": h0, "quick": args.quick}
    for deck, seeds in games_per_deck.items():
        games = {name: play_games((deck, h0, name), seeds=seeds, cap=1_000_000) for name in names}
        cells = {name: summarise((deck, h0, name), g) for name, g in games.items()}
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
        paired = versus_baseline([(deck, h0, n) for n in games], list(games.values()))
        for (_, _, name), (mean, low, high) in paired.items():
            if name.split(":")[0] not in LEARNERS:
                continue  # the references are not competing with the baseline
            rows.append(
                (f"{deck} / {name} - {BASELINE}: guesses", mean, f"95% [{low:,.1f}, {high:,.1f}]")
            )
            figures[f"{deck}|{name}|minus_baseline"] = [round(x, 1) for x in (mean, low, high)]
    report(f"eleusis scientists (H0 = {h0})", rows, figures)


if __name__ == "__main__":
    main()
