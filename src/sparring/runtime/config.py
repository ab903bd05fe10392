"""Config helpers: validation with clear messages, flattening for MLflow, stable hashing."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from omegaconf import DictConfig, OmegaConf


class ConfigError(ValueError):
    """A configuration value is not allowed; the message names the key, value and what is."""


def to_container(cfg: DictConfig | Mapping[str, Any]) -> dict[str, Any]:
    """A plain resolved dict of a Hydra/OmegaConf config (or a mapping)."""
    if isinstance(cfg, DictConfig):
        return OmegaConf.to_container(cfg, resolve=True)  # type: ignore[return-value]
    return dict(cfg)


def flatten(cfg: DictConfig | Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested config -> {"a.b.c": value}; lists are kept as their JSON text."""
    out: dict[str, Any] = {}
    for key, value in to_container(cfg).items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten(value, prefix=f"{name}."))
        elif isinstance(value, (list, tuple)):
            out[name] = json.dumps(value)
        else:
            out[name] = value
    return out


def config_hash(cfg: DictConfig | Mapping[str, Any], length: int = 12) -> str:
    """A short stable hash of a config (key order does not matter)."""
    text = json.dumps(to_container(cfg), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:length]


def lookup(cfg: Mapping[str, Any] | None, key: str) -> Any:
    """``cfg["a"]["b"]`` for the dotted key "a.b" (None when any part is missing)."""
    value: Any = cfg
    for part in key.split("."):
        if value is None:
            return None
        value = value.get(part) if isinstance(value, Mapping) else getattr(value, part, None)
    return value


def require_int(cfg: Mapping[str, Any], key: str, low: int, high: int | None = None) -> int:
    """``cfg[key]`` (``key`` may be dotted, "ga.population") as an int in [low, high]; raises
    ConfigError naming the key, the value and the range."""
    value = lookup(cfg, key)
    allowed = f"an integer >= {low}" if high is None else f"an integer in {low}..{high}"
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{key}={value!r} is not allowed: expected {allowed}")
    if value < low or (high is not None and value > high):
        raise ConfigError(f"{key}={value!r} is not allowed: expected {allowed}")
    return value


def require_ints(cfg: Mapping[str, Any], key: str, low: int, high: int) -> list[int]:
    """``cfg[key]`` as a non-empty list of ints in [low, high]."""
    value = lookup(cfg, key)
    items = list(value) if isinstance(value, Iterable) and not isinstance(value, str) else None
    if not items or any(isinstance(v, bool) or not isinstance(v, int) for v in items):
        raise ConfigError(
            f"{key}={value!r} is not allowed: "
            f"expected a non-empty list of integers in {low}..{high}"
        )
    bad = [v for v in items if not low <= v <= high]
    if bad:
        raise ConfigError(f"{key} contains {bad[0]}: values must be in {low}..{high}")
    return items


def require_number(
    cfg: Mapping[str, Any], key: str, low: float, high: float, low_open: bool = False
) -> float:
    """``cfg[key]`` as a number in [low, high] (or (low, high] with ``low_open``)."""
    value = lookup(cfg, key)
    bracket = "(" if low_open else "["
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if ok:
        ok = (value > low if low_open else value >= low) and value <= high
    if not ok:
        raise ConfigError(
            f"{key}={value!r} is not allowed: expected a number in {bracket}{low:g}, {high:g}]"
        )
    return float(value)


def require_choice(cfg: Mapping[str, Any], key: str, choices: Iterable[str]) -> str:
    """``cfg[key]`` as one of ``choices``."""
    allowed = list(choices)
    value = lookup(cfg, key)
    if value not in allowed:
        raise ConfigError(f"{key}={value!r} is not allowed: expected one of {', '.join(allowed)}")
    return value
