"""Every random stream of Sparring, derived from a seed and a stable key, never from a worker.

Two kinds, one rule (specs: determinism for any number of workers or chunk sizes):

- numpy streams: ``task_rng(seed, "equity", 12)`` / ``task_seed`` / ``seed_sequence`` come from
  ``numpy.random.SeedSequence(seed)`` spawned by the key, the same on every machine;
- kernel streams: numba kernels carry their state as one uint64 (splitmix64) and draw with
  ``next_u64``/``below``/``uniform``; ``stream_state(seed_state(seed), key)`` starts the stream of
  a task or a row.
"""

from __future__ import annotations

import hashlib
from typing import Any

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


@njit(cache=True)
def uniform(bits: np.uint64) -> float:
    """Map 64 random bits to a float in [0, 1) (the top 53 bits)."""
    return float(bits >> np.uint64(11)) * (1.0 / 9007199254740992.0)


def _key_words(key: tuple[object, ...]) -> tuple[int, ...]:
    words = []
    for part in key:
        if isinstance(part, (int, np.integer)) and part >= 0:
            words.append(int(part))
        else:  # strings and other keys: a stable 64-bit digest (Python's hash() is salted)
            digest = hashlib.sha256(repr(part).encode()).digest()
            words.append(int.from_bytes(digest[:8], "little"))
    return tuple(words)


def seed_sequence(seed: int, *key: object) -> np.random.SeedSequence:
    """The ``SeedSequence`` of the task named by ``key`` under the run ``seed``."""
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return np.random.SeedSequence(int(seed), spawn_key=_key_words(key))


def task_seed(seed: int, *key: object) -> int:
    """A 63-bit integer seed for the task named by ``key`` (fits numba and numpy)."""
    state = seed_sequence(seed, *key).generate_state(1, np.uint64)[0]
    return int(state >> np.uint64(1))


def task_rng(seed: int, *key: object) -> np.random.Generator:
    """A numpy ``Generator`` for the task named by ``key``."""
    return np.random.default_rng(seed_sequence(seed, *key))


def player_seed(info: dict[str, Any], kind: str) -> int:
    """The random seed of one of Sparring's own players in one arena game (a Mus player, an
    Eleusis scientist): from the seed and the seat of the game's start message (``info``)."""
    return task_seed(int(info.get("seed") or 0), kind, int(info.get("seat") or 0)) % (1 << 31)
