"""``conf/equity.yaml``: the preflop equity table."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sparring.config import checks
from sparring.config.common import Direction, ObjectiveConfig, StorageConfig
from sparring.poker.catalog import CLASS_INDEX, CLASSES, MAX_TABLE_OPPONENTS
from sparring.runtime.config import config_hash
from sparring.runtime.errors import ConfigError
from sparring.runtime.ray.settings import RayConfig
from sparring.runtime.tracking.settings import TrackingConfig


@dataclass
class EquityConfig(ObjectiveConfig):
    """169 starting-hand classes x opponent counts, ``trials`` Monte Carlo outcomes per cell."""

    objective: str | None = "mean_stderr"  # logged whether the table is computed or reused
    direction: Direction = Direction.minimize

    seed: int = 0
    trials: int = 20_000
    opponents: list[int] = field(default_factory=lambda: list(range(1, 10)))
    classes: Any = "all"  # "all" or a list of class names such as [AA, AKs, 72o]
    output: str = "data/preflop_equity.parquet"
    force: bool = False  # recompute even if `output` was made from this config
    ray: RayConfig = field(default_factory=RayConfig)
    tracking: TrackingConfig = field(default_factory=TrackingConfig)
    storage: StorageConfig = field(default_factory=StorageConfig)

    def __post_init__(self) -> None:
        checks.integer("seed", self.seed, 0)
        checks.integer("trials", self.trials, 1, 100_000_000)
        checks.integers("opponents", self.opponents, 1, MAX_TABLE_OPPONENTS)
        if self.classes != "all":
            if isinstance(self.classes, str) or not self.classes:
                raise ConfigError("classes", self.classes, "all or a list like [AA, AKs]")
            if len(set(self.classes)) != len(self.classes):  # a cell twice in the table
                raise ConfigError("classes", list(self.classes), "each class named once")
            for name in self.classes:
                if name not in CLASS_INDEX:
                    raise ConfigError("classes", name, "starting-hand classes such as AA, AKs, T9o")
        checks.storage_file("output", self.output)

    @property
    def class_names(self) -> tuple[str, ...]:
        return tuple(CLASSES) if self.classes == "all" else tuple(self.classes)

    @property
    def opponent_counts(self) -> tuple[int, ...]:
        return tuple(sorted(set(self.opponents)))

    @property
    def data_hash(self) -> str:
        """What defines the table's content (the reuse key)."""
        return config_hash(
            {
                "seed": self.seed,
                "trials": self.trials,
                "opponents": list(self.opponent_counts),
                "classes": list(self.class_names),
            }
        )
