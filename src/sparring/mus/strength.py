"""Exact hand strength by enumerating rank multisets with weights (specs/mus.md §14).

Only effective ranks matter, so the 91,390 four-card hands collapse to 330 rank multisets
(8 reyes) or 715 (4 reyes), each weighted by how many card sets produce it. Percentiles of a hand
in a lance are sums over these multisets, against the full deck or against the 36 cards the
player cannot see.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from math import comb
from typing import Any

from sparring.mus.cards import FACES, effective_rank, point_value
from sparring.mus.keys import chica_key, grande_key, juego_key, pares_key, punto_key


@lru_cache(maxsize=2)
def rank_classes(ocho_reyes: bool = True) -> tuple[tuple[int, int, int], ...]:
    """(effective rank, cards in the deck, point value) per class, low to high."""
    counts = Counter(effective_rank(f, ocho_reyes) for f in FACES for _ in range(4))
    return tuple((r, counts[r], 10 if r >= 10 else r) for r in sorted(counts))


@lru_cache(maxsize=2)
def multisets(ocho_reyes: bool = True) -> tuple[tuple[int, ...], ...]:
    """Every multiset of 4 effective ranks that the deck allows (sorted ranks)."""
    classes = rank_classes(ocho_reyes)
    out = []
    for combo in itertools.combinations_with_replacement([c[0] for c in classes], 4):
        need = Counter(combo)
        if all(need[r] <= n for r, n, _ in classes):
            out.append(combo)
    return tuple(out)


def weight(multiset: Sequence[int], available: dict[int, int]) -> int:
    """How many card sets give ``multiset`` when ``available[rank]`` cards of each rank remain."""
    w = 1
    for r, k in Counter(multiset).items():
        w *= comb(available.get(r, 0), k)
    return w


def points(ranks: Sequence[int]) -> int:
    return sum(10 if r >= 10 else r for r in ranks)


LANCE_KEYS: dict[str, Callable[[Sequence[int]], Any]] = {
    "grande": grande_key,
    "chica": chica_key,
    "pares": pares_key,
    "juego": lambda r: juego_key(points(r)),
    "punto": lambda r: punto_key(points(r)),
}


@dataclass(frozen=True)
class Percentile:
    """Where a hand stands in a lance against one random hand of the reference set."""

    p_lt: float  # share of hands with a smaller key (non-participants count as smallest)
    p_eq: float
    eligible_p_lt: float  # among participants only (pares, juego, punto)
    eligible_p_eq: float
    p_participates: float  # share of hands that take part (P(has pares), P(has juego))

    @property
    def mid(self) -> float:
        """Mid-rank percentile p_lt + p_eq / 2 (position-free)."""
        return self.p_lt + self.p_eq / 2

    def win_chance(self, nearer_mano: bool) -> float:
        """Chance to beat one opponent: ties go to whoever is nearer the mano."""
        return self.p_lt + (self.p_eq if nearer_mano else 0.0)


def percentile(
    lance: str, ranks: Sequence[int], ocho_reyes: bool = True, exclude_own: bool = False
) -> Percentile:
    """Exact percentile of the hand ``ranks`` (4 effective ranks) in ``lance``, against the full
    deck or (``exclude_own``) the 36 cards left when one's own 4 are removed."""
    if lance not in LANCE_KEYS:
        raise ValueError(f"unknown lance {lance!r}; lances are {', '.join(LANCE_KEYS)}")
    ranks = tuple(ranks)  # read once: the lookup and the scan see the same hand
    if not exclude_own:
        found = full_deck_table(lance, ocho_reyes).get(tuple(sorted(ranks)))  # keys ignore order
        if found is not None:
            return found
    return scan(lance, ranks, ocho_reyes, exclude_own)


def scan(
    lance: str, ranks: Sequence[int], ocho_reyes: bool = True, exclude_own: bool = False
) -> Percentile:
    """``percentile`` by walking every multiset against this one hand (the definition)."""
    key = LANCE_KEYS[lance]
    available = {r: n for r, n, _ in rank_classes(ocho_reyes)}
    if exclude_own:
        for r in ranks:
            available[r] -= 1
            if available[r] < 0:
                raise ValueError(f"hand {tuple(ranks)} has more {r}s than the deck")
    mine = key(ranks)
    total = lt = eq = part = part_lt = part_eq = 0
    for m in multisets(ocho_reyes):
        w = weight(m, available)
        if w == 0:
            continue
        total += w
        k = key(m)
        if k is not None:
            part += w
        if mine is None:
            if k is None:
                eq += w
            continue
        if k is None or k < mine:
            lt += w
            if k is not None:
                part_lt += w
        elif k == mine:
            eq += w
            part_eq += w
    return _from_counts(total, lt, eq, part, part_lt, part_eq)


def _from_counts(total: int, lt: int, eq: int, part: int, part_lt: int, part_eq: int) -> Percentile:
    """The shares, from the card-set counts (the one place they are divided)."""
    e_lt = part_lt / part if part else 0.0
    e_eq = part_eq / part if part else 0.0
    return Percentile(lt / total, eq / total, e_lt, e_eq, part / total)


@lru_cache(maxsize=len(LANCE_KEYS) * 2)
def full_deck_table(lance: str, ocho_reyes: bool = True) -> dict[tuple[int, ...], Percentile]:
    """``percentile`` of every hand (sorted ranks) in ``lance`` against the full deck, from one
    pass: the hands grouped by key and counted below each key. The same counts as ``scan``
    (integers), so the same floats, at 1/330 of the work: ``scan`` of every hand a Mus process
    meets cost it ~1.5 s."""
    key = LANCE_KEYS[lance]
    available = {r: n for r, n, _ in rank_classes(ocho_reyes)}
    keyed: list[tuple[tuple[int, ...], Any]] = []
    per_key: dict[Any, int] = {}  # card sets of each key among the hands that take part
    total = outside = 0  # every card set; those not taking part (key None)
    for m in multisets(ocho_reyes):
        w = weight(m, available)
        total += w
        k = key(m)
        keyed.append((m, k))
        if k is None:
            outside += w
        else:
            per_key[k] = per_key.get(k, 0) + w
    below: dict[Any, int] = {}  # card sets taking part with a smaller key
    running = 0
    for k in sorted(per_key):
        below[k] = running
        running += per_key[k]
    part = total - outside
    return {
        m: _from_counts(total, 0, outside, part, 0, 0)
        if k is None
        else _from_counts(total, outside + below[k], per_key[k], part, below[k], per_key[k])
        for m, k in keyed
    }


def category_counts(ocho_reyes: bool = True) -> dict[str, int]:
    """Full-deck hand counts per pares category, juego total and punto total (§14.2)."""
    available = {r: n for r, n, _ in rank_classes(ocho_reyes)}
    out: Counter[str] = Counter()
    for m in multisets(ocho_reyes):
        w = weight(m, available)
        pk = pares_key(m)
        out[("no pares", "pareja", "medias", "duples")[0 if pk is None else pk[0]]] += w
        total = points(m)
        out[f"juego {total}" if total >= 31 else f"punto {total}"] += w
        out["hands"] += w
    return dict(out)


__all__ = [
    "Percentile",
    "category_counts",
    "full_deck_table",
    "multisets",
    "percentile",
    "point_value",
    "rank_classes",
    "scan",
    "weight",
]


def is_segura(lance: str, ranks: Sequence[int], distance: int, ocho_reyes: bool = True) -> bool:
    """A sure hand (§13): it cannot lose ``lance`` whatever the unseen cards are.

    Ties go to the player nearest the mano, so at ``distance`` 0 (the mano) no unseen hand may
    be strictly better; further from the mano no unseen hand may even equal it. Exact, with the
    player's own cards removed from the deck."""
    p = percentile(lance, ranks, ocho_reyes, exclude_own=True)
    if LANCE_KEYS[lance](ranks) is None:
        return False
    beaten_or_tied = 1.0 - p.p_lt
    strictly_better = beaten_or_tied - p.p_eq
    return strictly_better <= 1e-12 if distance == 0 else beaten_or_tied <= 1e-12
