"""A search space as Hydra overrides, Optuna distributions and Tune grids.

A trial is the target pipeline's composed config with overrides ``key=value``: the preset's
fixed keys, then the sampled ones. The same strings make the best config's file, so rerunning
it composes exactly the config the best trial ran.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from sparring.config.tune import Distribution, HparamSearchConfig, ParamSpace
from sparring.runtime.tracking.params import short_names

_PLAIN = re.compile(r"[A-Za-z_][\w.\-:/@]*")
_RESERVED = {"null", "true", "false", "nan", "inf"}


def hydra_value(value: Any) -> str:
    """``value`` as Hydra's override grammar reads it back (strings quoted when needed)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(hydra_value(v) for v in value) + "]"
    text = str(value)
    if _PLAIN.fullmatch(text) and text.lower() not in _RESERVED:
        return text
    return json.dumps(text)  # a double-quoted string with escapes


def overrides(values: Mapping[str, Any]) -> list[str]:
    """``{"ga.p_mutation": 0.2}`` -> ``["ga.p_mutation=0.2"]``."""
    return [f"{key}={hydra_value(value)}" for key, value in values.items()]


def plain(value: Any) -> Any:
    """A sampled value as a plain Python value (numpy scalars from Optuna become int/float)."""
    if hasattr(value, "item"):
        return value.item()
    return value


def optuna_distributions(space: Mapping[str, ParamSpace]) -> dict[str, Any]:
    """The space as Optuna distributions (for OptunaSearch and the importance study)."""
    from optuna.distributions import (
        CategoricalDistribution,
        FloatDistribution,
        IntDistribution,
    )

    out: dict[str, Any] = {}
    for key, spec in space.items():
        if spec.type is Distribution.choice:
            out[key] = CategoricalDistribution(list(spec.values or []))
        elif spec.type is Distribution.int:
            out[key] = IntDistribution(int(spec.low or 0), int(spec.high or 0))
        else:
            log = spec.type is Distribution.loguniform
            out[key] = FloatDistribution(float(spec.low or 0), float(spec.high or 0), log=log)
    return out


def grid(search: HparamSearchConfig) -> dict[str, Any]:
    """Tune's param space for a grid search: every key with ``grid`` values."""
    from ray import tune

    return {k: tune.grid_search(list(s.grid)) for k, s in search.space.items() if s.grid}


def nested(flat: Mapping[str, Any]) -> dict[str, Any]:
    """``{"ga.p_mutation": 0.2}`` -> ``{"ga": {"p_mutation": 0.2}}`` (for a YAML file)."""
    out: dict[str, Any] = {}
    for key, value in flat.items():
        node = out
        *parents, leaf = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return out


def short_name(key: str, keys: list[str]) -> str:
    """The last part of a dotted key, or more when that is ambiguous among ``keys``."""
    return short_names([key], among=keys)[key]
