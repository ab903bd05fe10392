"""The 40-card Spanish deck and the two card readings of Mus (specs/mus.md §2).

A card is ``suit * 10 + i`` with ``FACES[i]`` its face (1..7, 10 sota, 11 caballo, 12 rey);
suits never matter. With ``ocho_reyes`` (the default) every 3 is a king and every 2 an ace for
ranking, pairs and points.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

FACES = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
SUITS = ("oros", "copas", "espadas", "bastos")
N_CARDS = 40
_NAMES = {1: "A", 10: "S", 11: "C", 12: "R"}
_PARSE = {
    "A": 1,
    "S": 10,
    "C": 11,
    "R": 12,
    "1": 1,
    "2": 2,
    "3": 3,
    "4": 4,
    "5": 5,
    "6": 6,
    "7": 7,
    "10": 10,
    "11": 11,
    "12": 12,
}


def face(card: int) -> int:
    if not 0 <= card < N_CARDS:
        raise ValueError(f"card {card} is outside 0..39")
    return FACES[card % 10]


def effective_rank(face_value: int, ocho_reyes: bool = True) -> int:
    """The rank used by grande, chica and pares: with 8 reyes a 3 is a king (12), a 2 an ace."""
    if face_value not in FACES:
        raise ValueError(f"face {face_value} is not a Spanish-deck face {FACES}")
    if ocho_reyes and face_value == 3:
        return 12
    if ocho_reyes and face_value == 2:
        return 1
    return face_value


def point_value(face_value: int, ocho_reyes: bool = True) -> int:
    """Points for juego and punto: figures 10; with 8 reyes a 3 is 10 and a 2 is 1."""
    rank = effective_rank(face_value, ocho_reyes)
    return 10 if rank >= 10 else rank


def hand_ranks(faces: Iterable[int], ocho_reyes: bool = True) -> tuple[int, ...]:
    return tuple(effective_rank(f, ocho_reyes) for f in faces)


def hand_points(faces: Iterable[int], ocho_reyes: bool = True) -> int:
    return sum(point_value(f, ocho_reyes) for f in faces)


def parse_faces(text: str) -> tuple[int, ...]:
    """Four faces written like "R R C A" or "12 12 11 1" (A, S, C, R for 1, 10, 11, 12)."""
    parts = text.upper().split()
    if len(parts) != 4:
        raise ValueError(f"{text!r}: a Mus hand has 4 cards, got {len(parts)}")
    try:
        return tuple(_PARSE[p] for p in parts)
    except KeyError as exc:
        raise ValueError(f"{text!r}: unknown card {exc.args[0]!r}; use A 2..7 S C R") from None


def format_faces(faces: Sequence[int]) -> str:
    return " ".join(_NAMES.get(f, str(f)) for f in faces)
