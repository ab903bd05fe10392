"""Cards of Eleusis: index ``c = 13 * suit + (number - 1)``; suits C, D, H, S; numbers 1..13.

Feedback of a guess is coded 0..3: bit 0 = suit right, bit 1 = number right (3 = both).

Names and constants only, no kernels: the config checks and the CLI import this without numba
(the kernels on cards and feedback are in ``feedback``).
"""

from __future__ import annotations

SUITS = "CDHS"
N_SUITS, N_NUMBERS = 4, 13
N_CARDS = N_SUITS * N_NUMBERS
BOTH, SUIT_ONLY, NUMBER_ONLY, NEITHER = 3, 1, 2, 0
HARMA_CHANGE = {BOTH: -3, SUIT_ONLY: 0, NUMBER_ONLY: 0, NEITHER: 2}


def card_index(suit: str, number: int) -> int:
    return 13 * SUITS.index(suit) + number - 1


def card_name(c: int) -> str:
    """ "H 12" style text of a card index."""
    return f"{SUITS[c // 13]} {c % 13 + 1}"
