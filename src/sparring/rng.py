"""A tiny counter-free random stream for numba kernels (splitmix64).

Kernels carry their state as one uint64 and draw with ``next_u64``/``below``; the stream for a
task or a row comes from ``stream_state(seed, key)``, so results depend on the seed and a stable
key, never on which worker or chunk computed them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True)
def mix64(z: np.uint64) -> np.uint64:
    """The splitmix64 finaliser: a bijective scramble of 64 bits."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def next_u64(state: np.uint64) -> tuple[np.uint64, np.uint64]:
    """Advance the stream: returns (new_state, 64 random bits)."""
    state = state + _GOLDEN
    return state, mix64(state)


@njit(cache=True)
def below(bits: np.uint64, n: int) -> int:
    """Map 64 random bits to 0..n-1 (multiply-shift on the top 32 bits; bias < n / 2**32)."""
    return int(((bits >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True)
def stream_state(seed_state: np.uint64, key: int) -> np.uint64:
    """Initial state of the stream with a stable integer ``key`` under a seed."""
    return mix64(seed_state ^ mix64(np.uint64(key) * _GOLDEN + np.uint64(1)))


def seed_state(seed: int) -> np.uint64:
    """A 64-bit kernel seed derived from an integer seed through ``numpy.random.SeedSequence``."""
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return np.uint64(np.random.SeedSequence(int(seed)).generate_state(1, np.uint64)[0])
