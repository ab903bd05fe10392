"""Hand evaluator: batch numba kernels over card arrays.

``evaluate7(cards)`` for shape (n, 7) and ``evaluate5(cards)`` for shape (n, 5) return one
int32 per hand, **higher is better**, equal exactly for equal strength: the dense rank 1..7,462
of the best five-card hand. ``hand_category`` maps values to 0 = high card ... 8 = straight
flush. See ``tables`` for the lookup scheme.

Other kernels (equity, the table engine) evaluate inside their own loops: they sum
``CARD_KEYS`` and OR ``CARD_BITS`` over a hand's cards (a board once, then two cards per player)
and call ``value7(key, bits)``.

The tables are module-level arrays, which numba freezes into the compiled code as constants:
helpers then take only scalars, so a call in a hot loop pays no reference counting (passing
arrays to a helper made the kernel ~7x slower). The tables are a pure function of
``tables.py``; numba's cache is keyed on this file, so bump a comment here if ``tables.py``
changes how values are computed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sparring.poker.tables import (
    CATEGORY_NAMES,
    FLUSH_BITS,
    HASH_SHIFT,
    SUIT_SHIFT,
    SUIT_START,
    load_tables,
)

__all__ = [
    "CARD_BITS",
    "CARD_KEYS",
    "CATEGORY_NAMES",
    "SUIT_START",
    "evaluate5",
    "evaluate7",
    "hand_category",
    "value5",
    "value7",
]

_T = load_tables()
CARD_KEYS = _T.card_keys
CARD_BITS = _T.card_bits
_OFFSETS7, _VALUES7 = _T.offsets7, _T.values7
_OFFSETS5, _VALUES5 = _T.offsets5, _T.values5
_FLUSH = _T.flush
_CATEGORY_STARTS = _T.category_starts
_HASH_MASK = (1 << HASH_SHIFT) - 1


@njit(cache=True)
def _flush_value(flush_bits: int, bits: int) -> np.int32:
    # Exactly one suit can hold five of seven cards: find its nibble, take its 13 rank bits.
    if flush_bits & 0x0008:
        shift = 0
    elif flush_bits & 0x0080:
        shift = 16
    elif flush_bits & 0x0800:
        shift = 32
    else:
        shift = 48
    return np.int32(_FLUSH[(bits >> shift) & 0x1FFF])


@njit(cache=True)
def value7(key: int, bits: int) -> np.int32:
    """Value of seven distinct cards from their summed ``CARD_KEYS`` (plus ``SUIT_START``)
    and OR-ed ``CARD_BITS``."""
    flush_bits = key & FLUSH_BITS
    if flush_bits == 0:
        rk = key >> SUIT_SHIFT
        return np.int32(_VALUES7[_OFFSETS7[rk >> HASH_SHIFT] + (rk & _HASH_MASK)])
    return _flush_value(flush_bits, bits)


@njit(cache=True)
def value5(key: int, bits: int) -> np.int32:
    """Value of five distinct cards, like ``value7`` (a separate hash: a rank '2' has key 0)."""
    flush_bits = key & FLUSH_BITS
    if flush_bits == 0:
        rk = key >> SUIT_SHIFT
        return np.int32(_VALUES5[_OFFSETS5[rk >> HASH_SHIFT] + (rk & _HASH_MASK)])
    return _flush_value(flush_bits, bits)


# The batch kernels look each card byte up here: the 52 cards' keys, and for every other byte a
# key that no seven cards reach, so a card out of range is found by the key it gives (one
# comparison a hand) and not by a pass over the input first (which cost ~15% of the run).
_OUT_OF_RANGE = np.int64(1) << 44  # above any sum of seven card keys (< 2**40), even x 7
_KEY_OF_BYTE = np.full(256, _OUT_OF_RANGE, dtype=np.int64)
_KEY_OF_BYTE[:52] = CARD_KEYS


@njit(cache=True)
def _flush_of_cards(flat, base, width, flush_bits):
    # Flushes are ~3% of random hands: their rank bits are gathered here, off the hot path.
    bits = np.int64(0)
    for j in range(width):
        bits |= CARD_BITS[flat[base + j]]
    return _flush_value(flush_bits, bits)


# The two batch kernels differ in their width and tables only; each is written out with its
# own literals and constant tables, which LLVM unrolls and folds (one generic kernel taking them
# as arguments ran ~10% slower). Each returns True when some card was out of range (value 0).


@njit(cache=True)
def _evaluate7_kernel(flat, out):
    out_of_range = False
    for i in range(out.shape[0]):
        base = 7 * i
        key = np.int64(SUIT_START)
        for j in range(7):
            key += _KEY_OF_BYTE[flat[base + j]]
        if key >= _OUT_OF_RANGE:
            out_of_range = True
            out[i] = 0
        elif key & FLUSH_BITS == 0:
            rk = key >> SUIT_SHIFT
            out[i] = _VALUES7[_OFFSETS7[rk >> HASH_SHIFT] + (rk & _HASH_MASK)]
        else:
            out[i] = _flush_of_cards(flat, base, 7, key & FLUSH_BITS)
    return out_of_range


@njit(cache=True)
def _evaluate5_kernel(flat, out):
    out_of_range = False
    for i in range(out.shape[0]):
        base = 5 * i
        key = np.int64(SUIT_START)
        for j in range(5):
            key += _KEY_OF_BYTE[flat[base + j]]
        if key >= _OUT_OF_RANGE:
            out_of_range = True
            out[i] = 0
        elif key & FLUSH_BITS == 0:
            rk = key >> SUIT_SHIFT
            out[i] = _VALUES5[_OFFSETS5[rk >> HASH_SHIFT] + (rk & _HASH_MASK)]
        else:
            out[i] = _flush_of_cards(flat, base, 5, key & FLUSH_BITS)
    return out_of_range


def _check_hands(cards: np.ndarray, width: int) -> np.ndarray:
    """``cards`` as a C-contiguous (n, width) uint8 array; shape errors raised here. Bytes are
    range-checked by the kernels; wider integers here, before they are narrowed to bytes."""
    arr = np.asarray(cards)
    if arr.ndim == 1 and arr.size == width:
        arr = arr.reshape(1, width)
    if arr.ndim != 2 or arr.shape[1] != width:
        raise ValueError(f"expected cards of shape (n, {width}), got {arr.shape}")
    if arr.dtype != np.uint8 and arr.size and (arr.max() > 51 or arr.min() < 0):
        raise ValueError("card values must be in 0..51")
    return np.ascontiguousarray(arr, dtype=np.uint8)


def _evaluated(kernel, cards: np.ndarray, width: int, out: np.ndarray | None) -> np.ndarray:
    arr = _check_hands(cards, width)
    if out is None:
        out = np.empty(arr.shape[0], dtype=np.int32)
    elif not (
        isinstance(out, np.ndarray)
        and out.dtype == np.int32
        and out.shape == (arr.shape[0],)
        and out.flags.c_contiguous
        and out.flags.writeable
    ):
        shown = getattr(out, "dtype", type(out).__name__), getattr(out, "shape", "")
        raise ValueError(
            f"out must be a writeable contiguous int32 array of shape ({arr.shape[0]},), "
            f"got {shown[0]} {shown[1]}"
        )
    if kernel(arr.ravel(), out):
        raise ValueError("card values must be in 0..51")
    return out


def evaluate7(cards: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Values of seven-card hands, shape (n, 7) -> int32 (n,).

    Cards must be distinct within a row (not checked here: this is the hot path; repeated
    cards give an unspecified value); a card outside 0..51 is a ``ValueError``. ``out``, an
    int32 array of shape (n,), receives the values and is returned: a caller evaluating batch
    after batch reuses it instead of paying for a new array's pages each call (above ~32 MB
    the allocator maps them anew and the OS zeroes them: ~10% of a 20 M-hand call)."""
    return _evaluated(_evaluate7_kernel, cards, 7, out)


def evaluate5(cards: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Values of five-card hands, shape (n, 5) -> int32 (n,), on the same scale as evaluate7
    (``out`` as there)."""
    return _evaluated(_evaluate5_kernel, cards, 5, out)


def hand_category(values: np.ndarray) -> np.ndarray:
    """Category per value: 0 high card, 1 pair, ..., 7 quads, 8 straight flush (int8)."""
    v = np.asarray(values)
    if v.size and (v.min() < 1 or v.max() > 7462):
        raise ValueError("hand values are in 1..7462")
    return (np.searchsorted(_CATEGORY_STARTS, v, side="right") - 1).astype(np.int8)
