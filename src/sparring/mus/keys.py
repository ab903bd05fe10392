"""Lance keys (specs/mus.md §7): a larger key is better; ``None`` = not taking part.

Ties go to the player nearest the mano (``winner``). All keys take effective ranks (or, for
juego and punto, the point total), so variants are handled before this module.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

LANCES = ("grande", "chica", "pares", "juego", "punto")
JUEGO_ORDER = {31: 8, 32: 7, 40: 6, 37: 5, 36: 4, 35: 3, 34: 2, 33: 1}
NO_PARES, PAREJA, MEDIAS, DUPLES = 0, 1, 2, 3


def grande_key(ranks: Sequence[int]) -> tuple[int, ...]:
    return tuple(sorted(ranks, reverse=True))


def chica_key(ranks: Sequence[int]) -> tuple[int, ...]:
    return tuple(-r for r in sorted(ranks))


def pares_key(ranks: Sequence[int]) -> tuple[int, int, int] | None:
    counts = Counter(ranks)
    top_rank, top_count = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
    if top_count == 4:
        return (DUPLES, top_rank, top_rank)
    if top_count == 3:
        return (MEDIAS, top_rank, 0)
    pairs = sorted((r for r, n in counts.items() if n == 2), reverse=True)
    if len(pairs) == 2:
        return (DUPLES, pairs[0], pairs[1])
    if len(pairs) == 1:
        return (PAREJA, pairs[0], 0)
    return None


def juego_key(total: int, real: bool = False) -> int | None:
    """Juego order 31 > 32 > 40 > 37 > ... > 33; with ``real`` (31 of three 7s and a figure,
    option treinta_y_una_real) above every other 31."""
    if total not in JUEGO_ORDER:
        return None
    return 9 if real and total == 31 else JUEGO_ORDER[total]


def punto_key(total: int) -> int | None:
    return total if total <= 30 else None


def winner(keys: Sequence[Any], mano: int) -> int | None:
    """Seat with the best key; ties go to the first seen going round from the mano."""
    best, best_key = None, None
    for d in range(len(keys)):
        seat = (mano + d) % len(keys)
        k = keys[seat]
        if k is not None and (best is None or k > best_key):
            best, best_key = seat, k
    return best
