"""Range checks for ``__post_init__`` of the config schemas.

Hydra already refuses unknown keys and wrong types; these check what a type cannot say (ranges,
non-empty lists, finite numbers) and raise ``ConfigError`` naming the field, the value and what is
allowed. Keys are the field's own name; the schema that holds it adds its prefix.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sparring.runtime.errors import ConfigError


def integer(key: str, value: Any, low: int, high: int | None = None) -> int:
    """``value`` as an int in [low, high] (no upper bound when ``high`` is None)."""
    allowed = f"an integer >= {low}" if high is None else f"an integer in {low}..{high}"
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(key, value, allowed)
    if value < low or (high is not None and value > high):
        raise ConfigError(key, value, allowed)
    return value


def optional_integer(key: str, value: Any, low: int, high: int | None = None) -> int | None:
    """None, or ``integer(key, value, low, high)``."""
    return None if value is None else integer(key, value, low, high)


def number(
    key: str,
    value: Any,
    low: float,
    high: float,
    *,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """``value`` as a finite number in [low, high]; ``low_open``/``high_open`` exclude the ends."""
    left, right = "(" if low_open else "[", ")" if high_open else "]"
    allowed = f"a number in {left}{low:g}, {high:g}{right}"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(key, value, allowed)
    if (value <= low if low_open else value < low) or (
        value >= high if high_open else value > high
    ):
        raise ConfigError(key, value, allowed)
    return float(value)


def probability(key: str, value: Any) -> float:
    """A finite probability in [0, 1]."""
    return number(key, value, 0.0, 1.0)


def integers(key: str, values: Sequence[Any], low: int, high: int) -> list[int]:
    """A non-empty list of ints in [low, high]."""
    allowed = f"a non-empty list of integers in {low}..{high}"
    if not values:
        raise ConfigError(key, list(values), allowed)
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ConfigError(key, list(values), allowed)
    return list(values)


def path_text(key: str, value: Any) -> str:
    """A non-empty path or URI."""
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(key, value, "a non-empty path")
    return value


def _storage(key: str, value: Any) -> Path | None:
    """Check a path or storage URI; the local path it names (None on an object store)."""
    from sparring.runtime.storage import ALLOWED, StorageError, check_uri, scheme_of

    path_text(key, value)
    try:
        check_uri(value)
    except StorageError:
        raise ConfigError(key, value, ALLOWED) from None
    return Path(value.split("://", 1)[-1]) if scheme_of(value) in ("", "file") else None


def storage_dir(key: str, value: Any) -> str:
    """A directory for data: a local path (not an existing file) or a storage URI."""
    local = _storage(key, value)
    if local is not None and local.is_file():
        raise ConfigError(key, value, "a directory, not a file")
    return value


def storage_file(key: str, value: Any) -> str:
    """A data file's place: a local path (not an existing directory) or a storage URI."""
    local = _storage(key, value)
    if local is not None and local.is_dir():
        raise ConfigError(key, value, "a file, not a directory")
    return value
