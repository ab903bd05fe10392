"""The feedback on a guess as numba kernels: its code (``cards``: bit 0 = suit right, bit 1 =
number right), the harma it changes, and the cards it leaves possible."""

from __future__ import annotations

import numpy as np
from numba import njit

from sparring.eleusis.cards import N_CARDS, N_NUMBERS


@njit(cache=True)
def suit_of(card: int) -> int:
    """The suit index 0..3 (C, D, H, S) of a card index."""
    return card // N_NUMBERS


@njit(cache=True)
def number_of(card: int) -> int:
    """The number index 0..12 (numbers 1..13) of a card index."""
    return card % N_NUMBERS


@njit(cache=True)
def feedback_code(guess: int, drawn: int) -> int:
    suit_ok = 1 if suit_of(guess) == suit_of(drawn) else 0
    number_ok = 2 if number_of(guess) == number_of(drawn) else 0
    return suit_ok + number_ok


@njit(cache=True)
def harma_change(code: int) -> int:
    if code == 3:
        return -3
    if code == 0:
        return 2
    return 0


@njit(cache=True)
def consistent(guess: int, code: int, card: int) -> bool:
    """Whether ``card`` could have been drawn given the feedback ``code`` on ``guess``."""
    return feedback_code(guess, card) == code


def consistent_cards(guess: int, code: int) -> np.ndarray:
    """Indices of the cards consistent with a feedback (1, 12, 3 or 36 of them)."""
    return np.array([c for c in range(N_CARDS) if consistent(guess, code, c)], dtype=np.int64)
