"""The pipeline a search tunes: its composed config, its module, and the check of a space.

``compose`` works both inside a running Hydra app (the search's driver, whose config path is
the same ``conf/``) and in a fresh process (a Tune trial), where it opens ``conf_dir`` itself.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from omegaconf import DictConfig

from sparring.config.tune import HparamSearchConfig
from sparring.runtime.errors import ConfigError
from sparring.runtime.explain import one_line
from sparring.tuning.space import overrides


def compose(conf_dir: str, pipeline: str, args: Sequence[str]) -> DictConfig:
    """``conf/<pipeline>.yaml`` composed with the overrides ``args``."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    import sparring.config  # registers the schemas  # noqa: F401

    if GlobalHydra.instance().is_initialized():
        return hydra_compose(config_name=pipeline, overrides=list(args))
    with initialize_config_dir(config_dir=os.path.abspath(conf_dir), version_base="1.3"):
        return hydra_compose(config_name=pipeline, overrides=list(args))


def typed(conf_dir: str, pipeline: str, args: Sequence[str]) -> Any:
    """The typed config of ``pipeline`` with ``args`` (schema checks included)."""
    from sparring.config import to_typed

    return to_typed(compose(conf_dir, pipeline, args))


def check_pipeline(pipeline: str) -> None:
    """Refuse, in one line, a pipeline no search can tune (nothing heavy is imported)."""
    from sparring.config import SCHEMAS
    from sparring.config.renamed import refuse_renamed_pipeline

    refuse_renamed_pipeline(pipeline, "hparams_search.pipeline={}")
    if pipeline not in SCHEMAS or pipeline in ("tune", "compare"):
        allowed = ", ".join(sorted(p for p in SCHEMAS if p not in ("tune", "compare")))
        raise ConfigError(
            "hparams_search.pipeline", pipeline, f"a pipeline to tune: one of {allowed}"
        )


def module(pipeline: str) -> ModuleType:
    """``sparring.pipelines.<pipeline>``: its ``run(config)`` and, when its traits
    (``sparring.pipelines.PIPELINES``) say it has them, ``steps(config)`` (steps it reports)
    and ``prepare(config)`` (shared inputs)."""
    check_pipeline(pipeline)
    return importlib.import_module(f"sparring.pipelines.{pipeline}")


def best_keys(search: HparamSearchConfig) -> dict[str, Any]:
    """What every trial sets and its best config keeps: the objective and direction when the
    preset names them, and its fixed keys (the trial-only keys are left out)."""
    named: dict[str, Any] = {}
    if search.objective is not None:
        named["objective"] = search.objective
    if search.direction is not None:
        named["direction"] = str(search.direction)
    return {**named, **search.fixed}


def base_overrides(search: HparamSearchConfig) -> list[str]:
    """What every trial sets: ``best_keys`` and the preset's trial-only keys."""
    return overrides({**best_keys(search), **search.trial})


def check(conf_dir: str, search: HparamSearchConfig) -> Any:
    """Compose the target with the preset's fixed keys, then with every end of every range
    (low, high, each choice) and every ``grid`` value: an unknown key or a value the target's
    schema refuses is one ``ConfigError`` naming the space's key, before any trial starts.
    Returns the base config."""
    check_pipeline(search.pipeline)
    base = base_overrides(search)
    try:
        config = typed(conf_dir, search.pipeline, base)
    except Exception as exc:
        raise ConfigError.text(f"hparams_search.fixed: {_line(exc)}") from None
    if getattr(config, "objective", None) is None:
        raise ConfigError(
            "hparams_search.objective", None, f"one of {search.pipeline}'s metrics to optimise"
        )
    for key, spec in search.space.items():
        for value in [*spec.ends(), *(spec.grid or [])]:
            try:
                typed(conf_dir, search.pipeline, [*base, *overrides({key: value})])
            except Exception as exc:
                raise ConfigError.text(f"hparams_search.space.{key}: {_line(exc)}") from None
    return config


def _line(exc: Exception) -> str:
    line = one_line(exc)
    if line is None:
        raise exc
    return line
