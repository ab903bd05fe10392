"""Config helpers: plain dicts of typed or Hydra configs, flattening for MLflow, stable hashing.

The schemas themselves live in ``sparring.config``; ``ConfigError`` in ``runtime.errors``.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import re
from collections.abc import Mapping
from enum import Enum
from typing import Any

from omegaconf import DictConfig, OmegaConf

from sparring.runtime.errors import ConfigError

__all__ = [
    "DEFAULT_TRACKING_URI",
    "ConfigError",
    "config_hash",
    "flatten",
    "metric_name",
    "to_container",
]

DEFAULT_TRACKING_URI = "sqlite:///mlflow.db"
"""The embedded MLflow store in the working directory (``conf/tracking/local.yaml``)."""


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_container(value)  # e.g. a ParamSpace inside a search's space
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def to_container(cfg: Any) -> dict[str, Any]:
    """A plain resolved dict of a typed config (dataclass), a Hydra config or a mapping; enum
    members become their values, so params and hashes read the same as the YAML."""
    if isinstance(cfg, DictConfig):
        cfg = OmegaConf.to_container(cfg, resolve=True)
    elif dataclasses.is_dataclass(cfg) and not isinstance(cfg, type):
        cfg = {f.name: getattr(cfg, f.name) for f in dataclasses.fields(cfg)}
        cfg = {k: to_container(v) if dataclasses.is_dataclass(v) else v for k, v in cfg.items()}
    return _plain(dict(cfg))


def flatten(cfg: Any, prefix: str = "") -> dict[str, Any]:
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


def metric_name(*parts: object) -> str:
    """``parts`` joined by ``/``, every character MLflow refuses in a metric name as ``_``."""
    return re.sub(r"[^A-Za-z0-9_.\-/ ]", "_", "/".join(str(p) for p in parts))


def close_names(name: str, known: list[str]) -> str:
    """The hint after an unknown metric name: its close matches, else some known names."""
    close = difflib.get_close_matches(name, known, n=4, cutoff=0.5)
    if close:
        return f"close matches: {', '.join(close)}"
    return f"known: {', '.join(known[:8])}" if known else "these runs logged no metrics"


def config_hash(cfg: Any, length: int = 12) -> str:
    """A short stable hash of a config (key order does not matter)."""
    text = json.dumps(to_container(cfg), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:length]
