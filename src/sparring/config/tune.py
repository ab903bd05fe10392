"""``conf/tune.yaml`` + ``conf/hparams_search/*.yaml``: a hyperparameter search over a
pipeline's keys.

A search preset names the target pipeline, the metric it optimises, the distributions of the
keys it varies (``space``), the keys it fixes and the early-stopping scheduler. Every check here
runs before any trial starts; the keys themselves are checked against the target pipeline's
schema by composing its config at the ends of every range (``sparring.tuning.space``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from sparring.config import checks
from sparring.config.common import Direction
from sparring.runtime.errors import ConfigError
from sparring.runtime.ray.settings import RayConfig
from sparring.runtime.tracking.settings import TrackingConfig


class Distribution(StrEnum):
    """How a key's values are drawn."""

    uniform = "uniform"  # a float in [low, high]
    loguniform = "loguniform"  # a float in [low, high], uniform in log space (low > 0)
    int = "int"  # an integer in [low, high]
    choice = "choice"  # one of values


class Algorithm(StrEnum):
    """Who proposes the next trial."""

    tpe = "tpe"  # Optuna's tree-structured Parzen estimator (Bayesian)
    random = "random"  # independent draws from the space
    grid = "grid"  # every combination of the keys' ``grid`` values (trials is its size)


@dataclass
class ParamSpace:
    """One key's distribution: ``{type: uniform, low: 0.05, high: 0.6}`` (low and high default
    to 0 and 1),
    ``{type: choice, values: [cycle, random]}``; ``grid`` lists the values a grid search tries
    (keys without one keep the pipeline's value under ``algorithm: grid``)."""

    type: Distribution = Distribution.uniform
    low: float | None = 0.0
    high: float | None = 1.0
    values: list[Any] | None = None
    grid: list[Any] | None = None

    def __post_init__(self) -> None:
        if self.type is Distribution.choice:
            if not self.values:  # (low and high, which have defaults, are not used)
                raise ConfigError("values", self.values, "a non-empty list for type choice")
        else:
            if self.values is not None:
                raise ConfigError("values", self.values, f"no values for type {self.type}")
            for end in ("low", "high"):
                value = getattr(self, end)
                if value is None or not math.isfinite(value):
                    raise ConfigError(end, value, f"a finite number for type {self.type}")
            assert self.low is not None and self.high is not None
            if not self.low < self.high:
                raise ConfigError("high", self.high, f"a number above low={self.low:g}")
            if self.type is Distribution.loguniform and self.low <= 0:
                raise ConfigError("low", self.low, "a number > 0 for type loguniform")
            if self.type is Distribution.int and not (
                float(self.low).is_integer() and float(self.high).is_integer()
            ):
                raise ConfigError("low", self.low, "integer ends for type int")
        if self.grid is not None and not self.grid:
            raise ConfigError("grid", self.grid, "a non-empty list of values, or null")

    def ends(self) -> list[Any]:
        """The values that bound the space: low and high, or every choice (checked up front)."""
        if self.type is Distribution.choice:
            return list(self.values or [])
        if self.type is Distribution.int:
            return [int(self.low or 0), int(self.high or 0)]
        return [self.low, self.high]


@dataclass
class SchedulerConfig:
    """ASHA early stopping for pipelines that report per step (evolve: once per generation)."""

    asha: bool = True  # false = every trial runs to the end
    grace_period: int = 5  # steps every trial runs before it can be stopped
    max_t: int | None = None  # the last step (null = the pipeline's own, e.g. ga.generations)
    reduction_factor: int = 3  # 1 / the fraction kept at each rung

    def __post_init__(self) -> None:
        checks.integer("grace_period", self.grace_period, 1)
        checks.optional_integer("max_t", self.max_t, 1)
        checks.integer("reduction_factor", self.reduction_factor, 2)
        if self.max_t is not None and self.max_t < self.grace_period:
            raise ConfigError("max_t", self.max_t, f"at least grace_period={self.grace_period}")


@dataclass
class HparamSearchConfig:
    """A search preset (``conf/hparams_search/<name>.yaml``)."""

    name: str = "search"
    pipeline: str = "evolve"  # the target: conf/<pipeline>.yaml with its schema
    objective: str | None = None  # one of the target's metrics; null = the target's own
    direction: Direction | None = None  # null = the target's own
    algorithm: Algorithm = Algorithm.tpe
    space: dict[str, ParamSpace] = field(default_factory=dict)  # key of the target -> values
    fixed: dict[str, Any] = field(default_factory=dict)  # overrides of every trial (kept in best)
    trial: dict[str, Any] = field(default_factory=dict)  # trial-only overrides (not in best)
    scheduler: SchedulerConfig = field(default_factory=SchedulerConfig)

    def __post_init__(self) -> None:
        checks.path_text("name", self.name)
        for key, spec in self.space.items():
            if not isinstance(spec, ParamSpace):  # a plain mapping (to_typed builds the rest)
                raise ConfigError(f"space.{key}", spec, "{type: ..., low/high or values}")
        both = sorted(set(self.space) & (set(self.fixed) | set(self.trial)))
        if both:
            raise ConfigError(f"fixed.{both[0]}", self.fixed.get(both[0]), "a key not in space")
        if self.algorithm is Algorithm.grid and not any(s.grid for s in self.space.values()):
            raise ConfigError("algorithm", "grid", "grid values on at least one key of space")

    def grid_size(self) -> int:
        """How many trials ``algorithm: grid`` runs: the product of the grid lengths."""
        return math.prod(len(s.grid) for s in self.space.values() if s.grid)


@dataclass
class TuneConfig:
    """``sparring tune pipeline=evolve hparams_search=ga_tpe trials=24 concurrency=2``."""

    hparams_search: HparamSearchConfig = field(default_factory=HparamSearchConfig)
    pipeline: str | None = None  # null = the preset's; must agree with it when given
    trials: int = 24
    concurrency: int = 2  # trials at once; their inner tasks share the cluster
    seed: int = 0  # the searcher's seed (each trial keeps the target's own seed)
    search_id: str | None = None  # null = <pipeline>-<preset>-<time>; names storage and runs
    resume: bool = False  # continue the search named by search_id (Tune restore)
    storage: str = "data/tune"  # Tune's experiment state: <storage>/<search_id>
    best_dir: str | None = None  # the best config's override file; null = conf/best
    ray: RayConfig = field(default_factory=RayConfig)
    tracking: TrackingConfig = field(default_factory=TrackingConfig)

    def __post_init__(self) -> None:
        # here, not in HparamSearchConfig: the schema's default (an empty preset) is built once
        search = self.hparams_search
        if not search.space:
            raise ConfigError(
                "hparams_search.space", {}, "at least one key of the target with values"
            )
        checks.integer("trials", self.trials, 1, 100_000)
        checks.integer("concurrency", self.concurrency, 1, 1_000)
        checks.integer("seed", self.seed, 0)
        checks.local_dir("storage", self.storage)  # Ray Tune's state, read back to resume
        if self.best_dir is not None:
            checks.local_dir("best_dir", self.best_dir)  # an override file Hydra reads back
        if self.pipeline is not None and self.pipeline != search.pipeline:
            raise ConfigError(
                "pipeline",
                self.pipeline,
                f"{search.pipeline}: hparams_search={search.name} is a space over "
                f"{search.pipeline}'s keys (pick a search preset for {self.pipeline})",
            )
        if self.resume and not self.search_id:
            raise ConfigError("search_id", None, "the id of the search to resume (resume=true)")
        if self.search_id is not None:  # it names Tune's directory, the best file and runs
            checks.name("search_id", self.search_id)
