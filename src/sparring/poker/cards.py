"""Card encoding and text form.

A card is an integer 0..51: ``card = 4 * rank + suit`` with rank 0 = '2' ... 12 = 'A' and
suit 0..3 = c, d, h, s. Arrays of cards are ``uint8``. A hand is written without separators
("AsKd"); spaces and commas are allowed between cards.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

RANKS = "23456789TJQKA"
SUITS = "cdhs"
N_CARDS = 52
CARD_TEXTS = tuple(rank + suit for rank in RANKS for suit in SUITS)
"""The text of card ``c`` (``4 * rank + suit``) is ``CARD_TEXTS[c]``: a lookup for hot paths."""


def card(text: str) -> int:
    """Return the integer of one card written like "As" or "td" (rank case-insensitive)."""
    if len(text) != 2:
        raise ValueError(f"card {text!r}: a card is two characters, rank then suit (e.g. 'As')")
    rank = RANKS.find(text[0].upper())
    if rank < 0:
        raise ValueError(f"card {text!r}: unknown rank {text[0]!r}; ranks are {RANKS}")
    suit = SUITS.find(text[1].lower())
    if suit < 0:
        raise ValueError(f"card {text!r}: unknown suit {text[1]!r}; suits are {SUITS}")
    return 4 * rank + suit


def parse_cards(text: str) -> np.ndarray:
    """Parse a hand like "AsKd" or "Ah 7c 2d" into a uint8 array; duplicates are an error."""
    if not isinstance(text, str):
        raise TypeError(f"parse_cards expects text, got {type(text).__name__}")
    compact = "".join(text.replace(",", " ").split())
    if len(compact) % 2:
        raise ValueError(
            f"cards {text!r}: odd number of characters ({len(compact)}); "
            "each card is a rank and a suit, e.g. 'AsKd'"
        )
    cards = [card(compact[i : i + 2]) for i in range(0, len(compact), 2)]
    arr = np.array(cards, dtype=np.uint8)
    check_distinct(arr, what=f"cards {text!r}")
    return arr


def format_cards(cards: Iterable[int] | np.ndarray) -> str:
    """Format cards as compact text, e.g. ``format_cards([51, 46]) == "AsKd"``."""
    out = []
    for c in np.asarray(cards, dtype=np.int64).ravel():
        if not 0 <= c < N_CARDS:
            raise ValueError(f"card value {int(c)} is outside 0..51")
        out.append(RANKS[c // 4] + SUITS[c % 4])
    return "".join(out)


def as_cards(value: str | Iterable[int] | np.ndarray, what: str = "cards") -> np.ndarray:
    """Accept text or integers and return a validated uint8 card array."""
    if isinstance(value, str):
        return parse_cards(value)
    arr = np.asarray(value, dtype=np.int64).ravel()
    bad = arr[(arr < 0) | (arr >= N_CARDS)]
    if bad.size:
        raise ValueError(f"{what}: card value {int(bad[0])} is outside 0..51")
    out = arr.astype(np.uint8)
    check_distinct(out, what=what)
    return out


def check_distinct(cards: np.ndarray, what: str = "cards") -> None:
    """Raise ValueError naming the first card that appears twice."""
    seen: set[int] = set()
    for c in cards.tolist():
        if c in seen:
            raise ValueError(f"{what}: duplicate card {format_cards([c])}")
        seen.add(c)
