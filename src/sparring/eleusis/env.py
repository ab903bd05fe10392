"""The Eleusis game step by step: a hidden deck, censored feedback, harma, the cap.

Cards are drawn i.i.d. from p with the game's own random stream (``scientists.draw_card``), so
a game is defined by (deck, seed) and every scientist sees the same card sequence.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sparring.eleusis.cards import N_CARDS
from sparring.eleusis.feedback import feedback_code, harma_change
from sparring.eleusis.scientists import draw_card
from sparring.seeding import seed_state, stream_state

DEFAULT_HARMA = 100
CAP = 1_000_000


def deck_cdf(p: np.ndarray) -> np.ndarray:
    cdf = np.cumsum(np.asarray(p, dtype=np.float64))
    cdf /= cdf[-1]
    cdf[-1] = 1.0
    return cdf


def game_stream(seed: int) -> np.uint64:
    return np.uint64(stream_state(seed_state(seed), 0))


@dataclass
class Feedback:
    guess: int
    suit_right: bool
    number_right: bool

    @property
    def code(self) -> int:
        return int(self.suit_right) + 2 * int(self.number_right)


class EleusisGame:
    """One game: ``guess(card)`` returns the feedback; ``finished`` when harma <= 0, ``dnf``
    at the cap."""

    def __init__(self, p: np.ndarray, seed: int, harma: int = DEFAULT_HARMA, cap: int = CAP):
        if harma < 1:
            raise ValueError(f"starting harma must be >= 1, got {harma}")
        if cap < 1:
            raise ValueError(f"cap must be >= 1, got {cap}")
        self.cdf = deck_cdf(p)
        self.state = game_stream(seed)
        self.harma = harma
        self.cap = cap
        self.guesses = 0
        self.drawn: int | None = None  # the last card drawn: the referee's, never the player's

    @property
    def finished(self) -> bool:
        return self.harma <= 0

    @property
    def dnf(self) -> bool:
        return not self.finished and self.guesses >= self.cap

    @property
    def over(self) -> bool:
        return self.finished or self.dnf

    def guess(self, card: int) -> Feedback:
        if self.over:
            raise RuntimeError("the game is over")
        if not 0 <= card < N_CARDS:
            raise ValueError(f"card index {card} is outside 0..51")
        state, drawn = draw_card(self.cdf, self.state)
        self.state = np.uint64(state)  # numba hands back a Python int
        self.drawn = int(drawn)
        code = int(feedback_code(card, drawn))
        self.harma += int(harma_change(code))
        self.guesses += 1
        return Feedback(card, bool(code & 1), bool(code & 2))
