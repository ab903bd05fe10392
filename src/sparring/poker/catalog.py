"""What a poker config may name, and how far it may go: plain values, no kernels.

The config check, the command line and ``--help`` read these without importing numba (the
modules that play, ``rules``, ``bots``, ``equity`` and ``preflop``, compile kernels on import);
those modules take the same values from here, so each is written once.
"""

from __future__ import annotations

from sparring.poker.cards import RANKS

# A chromosome's genes: street (3) x active opponents (5) x still to act (3) x bets to call (4)
# x pot (3), in the order of ``rules.gene_index``.
N_GENES = 540
MIN_SEATS, MAX_SEATS = 2, 10  # a table's seats (specs/poker.md §6)
MAX_OPPONENTS = 22  # equity's random hands: 2 + 5 + 2 * 22 = 51 cards
MAX_TABLE_OPPONENTS = 9  # the preflop table's columns: 1..9 random hands (a full table)
BASELINES = ("calling_station", "maniac", "random", "tight_aggressive", "mixed")
"""The fixed players of ``poker.bots`` ("mixed": a table of the other four)."""


def _class_names() -> list[str]:
    ranks = RANKS[::-1]  # A first
    pairs = [r + r for r in ranks]
    unpaired = [(hi, lo) for i, hi in enumerate(ranks) for lo in ranks[i + 1 :]]
    return pairs + [hi + lo + "s" for hi, lo in unpaired] + [hi + lo + "o" for hi, lo in unpaired]


CLASSES: tuple[str, ...] = tuple(_class_names())
"""The 169 preflop starting-hand classes: the 13 pairs (AA ... 22), the 78 suited hands (AKs,
AQs, ..., 32s), then the 78 offsuit hands in the same order."""
CLASS_INDEX = {name: i for i, name in enumerate(CLASSES)}
