"""Seeds derived from stable task keys, never from worker identity.

``task_seed(seed, "equity", 12)`` is the same integer on every machine and for every number of
workers or chunk sizes, so each task draws the same numbers wherever it runs.
"""

from __future__ import annotations

import hashlib

import numpy as np


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
