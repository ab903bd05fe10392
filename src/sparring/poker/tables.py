"""Lookup tables of the 7-card evaluator and how they are built.

Each card carries an additive *rank key* (keys chosen so that sums of up to seven of them, at
most four of a rank, are unique) and a 4-bit suit counter. A hand's key is the sum of its cards'
keys, so a board is summed once and each player adds two cards. Non-flush hands are looked up by
rank key in a displacement perfect hash (a few hundred kB, cache resident); flushes are found
from the suit counters (each counter starts at 3, so five or more of a suit sets bit 3 of its
nibble) and looked up by their 13-bit rank mask in an 8,192-entry table; the masks come from a
second per-card word with one bit per card (16 bits per suit), OR-ed as the keys are summed.

Hand values are dense strength ranks: 1 (7-5-4-3-2 offsuit) ... 7,462 (royal flush), higher is
better, equal exactly for equal poker strength. The tables are built in a few seconds and cached
on disk (see `load_tables`); ``python -m sparring.poker.tables`` prints their sizes.
"""

from __future__ import annotations

import itertools
import os
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from numba import njit

from sparring.runtime import caches

# Rank keys for '2'..'A' whose sums over multisets of up to seven cards (<= 4 per rank) are unique.
RANK_KEYS = np.array(
    [0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181], dtype=np.int64
)
SUIT_SHIFT = 16  # card key = rank_key << SUIT_SHIFT | suit nibble
SUIT_START = 0x3333  # every suit counter starts at 3: five of a suit reach 8 (bit 3 of the nibble)
FLUSH_BITS = 0x8888
HASH_SHIFT = 9  # displacement hash: row = key >> HASH_SHIFT, column = key & (2**HASH_SHIFT - 1)

CATEGORY_NAMES = (
    "high card",
    "pair",
    "two pair",
    "trips",
    "straight",
    "flush",
    "full house",
    "quads",
    "straight flush",
)
_BASE = 13**5  # category weight in the sparse strength code


def _code(category: int, ranks: tuple[int, ...]) -> int:
    """Sparse strength code: category first, then tie-break ranks in order of importance."""
    digits = list(ranks) + [0] * (5 - len(ranks))
    value = 0
    for d in digits:
        value = value * 13 + d
    return category * _BASE + value


def _straight_top(present: set[int]) -> int:
    """Top rank of the best straight among present ranks, or -1 (the wheel tops at '5' = 3)."""
    for top in range(12, 3, -1):
        if all(r in present for r in range(top - 4, top + 1)):
            return top
    if all(r in present for r in (12, 0, 1, 2, 3)):
        return 3
    return -1


def best_rank_code(counts: tuple[int, ...]) -> int:
    """Best non-flush 5-card code from rank counts (13 entries, at least 5 cards in all)."""
    by_rank = sorted(range(13), reverse=True)
    quads = [r for r in by_rank if counts[r] >= 4]
    trips = [r for r in by_rank if counts[r] >= 3]
    pairs = [r for r in by_rank if counts[r] >= 2]
    present = [r for r in by_rank if counts[r] >= 1]
    if quads:
        q = quads[0]
        return _code(7, (q, next(r for r in present if r != q)))
    if trips:
        t = trips[0]
        rest = [r for r in pairs if r != t]
        if rest:
            return _code(6, (t, rest[0]))
    top = _straight_top(set(present))
    if top >= 0:
        return _code(4, (top,))
    if trips:
        t = trips[0]
        return _code(3, (t, *[r for r in present if r != t][:2]))
    if len(pairs) >= 2:
        hi, lo = pairs[:2]
        return _code(2, (hi, lo, next(r for r in present if r not in (hi, lo))))
    if pairs:
        p = pairs[0]
        return _code(1, (p, *[r for r in present if r != p][:3]))
    return _code(0, tuple(present[:5]))


def best_flush_code(mask: int) -> int:
    """Best 5-card code among the flush cards whose ranks are the set bits of ``mask``."""
    present = [r for r in range(12, -1, -1) if mask >> r & 1]
    top = _straight_top(set(present))
    if top >= 0:
        return _code(8, (top,))
    return _code(5, tuple(present[:5]))


def _rank_multisets(size: int):
    """All multisets of ``size`` ranks with at most four of each, as 13-entry count tuples."""
    for combo in itertools.combinations_with_replacement(range(13), size):
        counts = [0] * 13
        for r in combo:
            counts[r] += 1
        if max(counts) <= 4:
            yield tuple(counts)


def _perfect_hash(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Displacement hash: ``table[offsets[k >> S] + (k & M)] == value`` for every key."""
    rows = keys >> HASH_SHIFT
    cols = keys & ((1 << HASH_SHIFT) - 1)
    n_rows = int(rows.max()) + 1
    offsets = np.zeros(n_rows, dtype=np.int32)
    order = np.argsort(rows, kind="stable")
    rows_sorted = rows[order]
    starts = np.searchsorted(rows_sorted, np.arange(n_rows + 1))
    sizes = np.diff(starts)
    occupied = np.zeros(len(keys) * 4 + (1 << HASH_SHIFT), dtype=np.bool_)
    table = np.zeros(occupied.shape, dtype=np.uint16)
    # Place the fullest rows first; each takes the first offset where its columns are all free.
    row_order = np.argsort(-sizes, kind="stable").astype(np.int64)
    _place_rows(row_order, starts, order, cols, values, offsets, occupied, table)
    used = int(np.flatnonzero(occupied).max()) + 1
    return offsets, table[:used].copy()


@njit(cache=True)
def _place_rows(row_order, starts, order, cols, values, offsets, occupied, table):
    for row in row_order:
        lo, hi = starts[row], starts[row + 1]
        if lo == hi:
            continue
        offset = 0
        while True:
            free = True
            for j in range(lo, hi):
                if occupied[offset + cols[order[j]]]:
                    free = False
                    break
            if free:
                break
            offset += 1
        for j in range(lo, hi):
            m = order[j]
            occupied[offset + cols[m]] = True
            table[offset + cols[m]] = values[m]
        offsets[row] = offset


@dataclass(frozen=True)
class Tables:
    """The evaluator's tables; all arrays are read-only numpy arrays."""

    card_keys: np.ndarray  # int64[52]: rank_key << 16 | 1 << 4 * suit (summed)
    card_bits: np.ndarray  # int64[52]: 1 << (16 * suit + rank) (OR-ed: the flush rank masks)
    offsets7: np.ndarray  # int32: displacement per hash row, 7-card rank keys
    values7: np.ndarray  # uint16: dense value per hash slot
    offsets5: np.ndarray  # int32: the same for 5-card rank keys
    values5: np.ndarray
    flush: np.ndarray  # uint16[8192]: dense value of the best flush in a rank mask (0 if < 5)
    category_starts: np.ndarray  # int32[9]: the lowest dense value of each category


def _dense_ranks(codes: list[int]) -> dict[int, int]:
    unique = sorted(set(codes))
    return {c: i + 1 for i, c in enumerate(unique)}


TABLES_VERSION = 1
_FIELDS = tuple(Tables.__dataclass_fields__)


def cache_path() -> Path:
    """Where built tables are cached: ``$SPARRING_CACHE_DIR`` or ``~/.cache/sparring``."""
    return caches.cache_home() / f"poker_tables_v{TABLES_VERSION}.npz"


@lru_cache(maxsize=1)
def load_tables() -> Tables:
    """The evaluator's tables: from the on-disk cache when present, else built and cached.

    Building takes a few seconds; every Ray worker would pay it, so the result is saved
    (atomically: temp file, then rename) and later processes load it in milliseconds. A
    cache file that is missing, cut short or damaged (its members' CRC-32) is built again.
    """
    path = cache_path()
    try:
        # a flipped bit fails the zip member's CRC-32 (BadZipFile): built again, never used
        with np.load(path, allow_pickle=False) as z:
            arrays = [z[name] for name in _FIELDS]
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile):
        tables = build_tables()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp.npz")
            np.savez(tmp, **{name: getattr(tables, name) for name in _FIELDS})
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only home only costs the rebuild next time
        return tables
    for a in arrays:
        a.setflags(write=False)
    return Tables(*arrays)


def build_tables() -> Tables:
    """Build the evaluator's tables from the rules of poker (a few seconds)."""
    five = list(_rank_multisets(5))
    seven = list(_rank_multisets(7))
    codes5 = [best_rank_code(c) for c in five]
    codes7 = [best_rank_code(c) for c in seven]
    flush_codes = {m: best_flush_code(m) for m in range(1 << 13) if bin(m).count("1") >= 5}
    five_flush = [code for m, code in flush_codes.items() if bin(m).count("1") == 5]
    dense = _dense_ranks(codes5 + five_flush)

    def rank_keys(multisets):
        counts = np.array(multisets, dtype=np.int64)
        return counts @ RANK_KEYS

    keys5, keys7 = rank_keys(five), rank_keys(seven)
    for name, keys in (("5-card", keys5), ("7-card", keys7)):
        if len(np.unique(keys)) != len(keys):
            raise AssertionError(f"rank keys are not unique over {name} multisets")
    offsets5, values5 = _perfect_hash(keys5, np.array([dense[c] for c in codes5], np.uint16))
    offsets7, values7 = _perfect_hash(keys7, np.array([dense[c] for c in codes7], np.uint16))
    flush = np.zeros(1 << 13, dtype=np.uint16)
    for m, code in flush_codes.items():
        flush[m] = dense[code]

    by_category: dict[int, int] = {}
    for code, value in dense.items():
        cat = code // _BASE
        by_category[cat] = min(value, by_category.get(cat, value))
    category_starts = np.array([by_category[c] for c in range(9)], dtype=np.int32)

    suits = np.arange(52) % 4
    ranks = np.arange(52) // 4
    card_keys = (RANK_KEYS[ranks] << SUIT_SHIFT) | (1 << (4 * suits))
    card_bits = np.left_shift(1, 16 * suits + ranks).astype(np.int64)
    arrays = (card_keys, card_bits, offsets7, values7, offsets5, values5, flush, category_starts)
    for a in arrays:
        a.setflags(write=False)
    return Tables(*arrays)


if __name__ == "__main__":
    t = load_tables()
    print(f"cache: {cache_path()}")
    total = sum(a.nbytes for a in (t.offsets7, t.values7, t.offsets5, t.values5, t.flush))
    hash7 = t.offsets7.nbytes + t.values7.nbytes
    print(f"7-card hash: {hash7:,} bytes; all tables {total:,} bytes")
    print("category starts:", t.category_starts.tolist())
