"""Eleusis for the bridges (``sparring.interop``): the scientist's observation as a fixed-size
vector of numbers.

The whole action set is the 52 cards in card-index order (``eleusis.game.CARDS``: "C 1" ..
"S 13"), every one legal until the game is over. ``encode(observation, harma)`` reads the JSON
observation of ``EleusisPlay.observation(0)`` and nothing else (never the state: the drawn card
and the deck stay hidden); ``harma`` is the game's starting harma, a public constant. The
observation holds the feedback on the last guess only (the scientist remembers the earlier
ones itself), so the vector does too. Every value is in -1..1. The blocks, in order
(``BLOCKS``):

- ``guess`` (52): the last guess, one-hot (all 0 before the first guess);
- ``feedback`` (5): one-hot of none yet, neither right, the suit right, the number right, both
  right;
- ``harma`` (2): ``harma / (|harma| + h0)`` (0.5 at the start, below 0 once finished) and
  ``clip(harma, 0, 10) / 10`` (how near the end is);
- ``guesses`` (2): ``guesses / cap`` and ``log(1 + guesses) / log(1 + cap)``;
- ``over`` (2): finished (the harma is gone), dnf (the cap was reached).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sparring.eleusis.cards import N_CARDS, N_NUMBERS, SUITS

BLOCKS: tuple[tuple[str, int], ...] = (
    ("guess", N_CARDS),
    ("feedback", 5),
    ("harma", 2),
    ("guesses", 2),
    ("over", 2),
)
"""The blocks of the vector, in order: (name, size)."""

OFFSETS: dict[str, int] = {}
_at = 0
for _name, _size in BLOCKS:
    OFFSETS[_name] = _at
    _at += _size
SIZE = _at
"""The length of the vector (``observation_shape() == (SIZE,)``)."""

_NEAR = 10  # the harma counted one by one near the end


def card_of(name: str) -> int:
    """The index of a card written like "H 12"; ValueError for anything else."""
    known = _CARD_INDEX.get(name) if isinstance(name, str) else None
    if known is not None:
        return known
    suit, _, number = str(name).partition(" ")
    if suit not in SUITS or len(suit) != 1 or not number.isdigit():
        raise ValueError(f"{name!r} is not a card like 'H 12'")
    if not 1 <= int(number) <= N_NUMBERS:
        raise ValueError(f"{name!r}: numbers run 1..{N_NUMBERS}")
    return N_NUMBERS * SUITS.index(suit) + int(number) - 1


_CARD_INDEX = {f"{suit} {n}": N_NUMBERS * i + n - 1 for i, suit in enumerate(SUITS)
               for n in range(1, N_NUMBERS + 1)}  # fmt: skip
"""Every card's text -> its index (``card_of`` reads the texts it is sent here first)."""


def encode(observation: dict[str, Any], harma: int) -> np.ndarray:
    """The observation as ``SIZE`` float32 numbers (see the module docstring); ``harma`` is the
    game's starting harma (h0)."""
    out = np.zeros(SIZE, dtype=np.float32)
    last = observation.get("last")
    if last is None:
        out[OFFSETS["feedback"]] = 1.0
    else:
        out[OFFSETS["guess"] + card_of(last["guess"])] = 1.0
        code = int(bool(last["suit_right"])) + 2 * int(bool(last["number_right"]))
        out[OFFSETS["feedback"] + 1 + code] = 1.0  # neither, suit, number, both
    h = int(observation["harma"])
    out[OFFSETS["harma"]] = h / (abs(h) + max(int(harma), 1))
    out[OFFSETS["harma"] + 1] = min(max(h, 0), _NEAR) / _NEAR
    guesses, cap = int(observation["guesses"]), max(int(observation["cap"]), 1)
    out[OFFSETS["guesses"]] = min(guesses, cap) / cap
    out[OFFSETS["guesses"] + 1] = math.log1p(min(guesses, cap)) / math.log1p(cap)
    out[OFFSETS["over"]] = float(bool(observation.get("finished")))
    out[OFFSETS["over"] + 1] = float(bool(observation.get("dnf")))
    return out
