"""Range checks that raise ``ConfigError``: pure, so kernels and config schemas share them.

Each names the key, the value and what is allowed (``ga.population=3 is not allowed: expected an
integer in 4..100000`` once the schema adds the prefix) and returns the value, normalised where a
type says more than Python does (a number as a float, a choice as its enum member).
``sparring.config.checks`` re-exports them beside the storage checks of the schemas.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import Enum
from typing import Any, TypeVar

from sparring.runtime.errors import ConfigError

E = TypeVar("E", bound=Enum)


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


def choice(key: str, value: Any, options: type[E]) -> E:
    """``value`` as a member of the enum ``options`` (a member, or its value)."""
    try:
        return options(value)
    except ValueError:
        allowed = ", ".join(str(option.value) for option in options)
        raise ConfigError(key, value, f"one of {allowed}") from None


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


NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}"
NAME_ALLOWED = "a name of letters, digits, '.', '_' and '-' (at most 128, not starting with '.')"


def name(key: str, value: Any) -> str:
    """A name that becomes a path, an MLflow filter value or a tag (a retrain id, a search id,
    an experiment, a model or a player): one rule for all, so none can climb out of its
    directory (``..``, ``/``) or break a filter string (quotes)."""
    import re

    if not isinstance(value, str) or not re.fullmatch(NAME_PATTERN, value) or ".." in value:
        raise ConfigError(key, value, NAME_ALLOWED)
    return value
