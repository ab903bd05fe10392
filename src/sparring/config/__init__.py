"""Typed config schemas, one per pipeline, registered in Hydra's ConfigStore.

Each ``conf/<pipeline>.yaml`` names its schema first in its defaults (``- schema: <pipeline>``),
so Hydra refuses unknown keys and wrong types while composing; ranges and cross-field rules live
in each schema's ``__post_init__`` and raise ``ConfigError`` when ``to_typed`` builds the object.
The schemas sit in the group ``schema`` at the global package, which lets ``retrain.yaml`` take
every evolve setting and swap the schema with ``- override schema: retrain``.
"""

from __future__ import annotations

from hydra.core.config_store import ConfigStore

from sparring.config.arena import ArenaConfig
from sparring.config.compare import CompareConfig
from sparring.config.eleusis_bench import EleusisBenchConfig
from sparring.config.equity import EquityConfig
from sparring.config.evolve import EvolveConfig, LeagueConfig, RetrainConfig
from sparring.config.flagbots_bench import FlagBotsBenchConfig
from sparring.config.handgen import HandgenConfig
from sparring.config.tune import TuneConfig
from sparring.config.typed import to_typed
from sparring.config.validate import ValidateConfig
from sparring.runtime.config import DEFAULT_TRACKING_URI
from sparring.runtime.ray.settings import RayConfig
from sparring.runtime.tracking.settings import TrackingConfig

SCHEMAS: dict[str, type] = {
    "equity": EquityConfig,
    "handgen": HandgenConfig,
    "evolve": EvolveConfig,
    "retrain": RetrainConfig,
    "validate": ValidateConfig,
    "flagbots_bench": FlagBotsBenchConfig,
    "eleusis_bench": EleusisBenchConfig,
    "compare": CompareConfig,
    "league": LeagueConfig,
    "tune": TuneConfig,
    "arena": ArenaConfig,
}
"""Pipeline (= primary config name) -> its schema."""


def register() -> None:
    """Put every schema in Hydra's ConfigStore (idempotent)."""
    store = ConfigStore.instance()
    for name, schema in SCHEMAS.items():
        store.store(group="schema", name=name, node=schema, package="_global_")


register()

__all__ = [
    "DEFAULT_TRACKING_URI",
    "SCHEMAS",
    "ArenaConfig",
    "CompareConfig",
    "EleusisBenchConfig",
    "EquityConfig",
    "EvolveConfig",
    "FlagBotsBenchConfig",
    "HandgenConfig",
    "LeagueConfig",
    "RayConfig",
    "RetrainConfig",
    "TrackingConfig",
    "TuneConfig",
    "ValidateConfig",
    "register",
    "to_typed",
]
