"""``conf/handgen.yaml``: deal sets with precomputed equities and showdown strengths."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sparring.config import checks
from sparring.config.common import ObjectiveConfig, StorageConfig
from sparring.poker.catalog import MAX_SEATS, MIN_SEATS
from sparring.poker.deal_set_config import DealSetConfig
from sparring.runtime.errors import ConfigError
from sparring.runtime.ray.settings import RayConfig
from sparring.runtime.storage.location import is_remote
from sparring.runtime.tracking.settings import TrackingConfig


@dataclass
class PreflopConfig:
    """The fixed preflop policy (also used by the table engine)."""

    raise_factor: float = 1.6
    call_factor: float = 1.1

    def __post_init__(self) -> None:
        checks.number("raise_factor", self.raise_factor, 0, 10, low_open=True)
        checks.number("call_factor", self.call_factor, 0, 10, low_open=True)


@dataclass
class HandgenPreflopConfig(PreflopConfig):
    """The preflop policy and the equity table it reads."""

    table: str | None = None  # a preflop_equity Parquet file; null = the one in the package

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.table is not None and not is_remote(checks.storage_file("table", self.table)):
            # a table on an object store is checked when it is read (one line, too)
            path = Path(self.table.removeprefix("file://"))
            if not path.exists():
                raise ConfigError("table", self.table, "an existing preflop_equity Parquet file")
            if path.is_dir():
                raise ConfigError("table", self.table, "a file, not a directory")


@dataclass
class HandgenConfig(ObjectiveConfig):
    """``deals`` deals for ``table_size`` seats, ``shard_size`` per Ray task and Parquet file."""

    deals: int = 400
    table_size: int = 10
    equity_trials: int = 2000
    seed: int = 1
    shard_size: int = 50
    output_root: str = "data/deals"  # the set goes to <output_root>/<config-hash>/
    preflop: HandgenPreflopConfig = field(default_factory=HandgenPreflopConfig)
    ray: RayConfig = field(default_factory=RayConfig)
    tracking: TrackingConfig = field(default_factory=TrackingConfig)
    storage: StorageConfig = field(default_factory=StorageConfig)

    def __post_init__(self) -> None:
        checks.integer("deals", self.deals, 1, 10_000_000)
        checks.integer("table_size", self.table_size, MIN_SEATS, MAX_SEATS)
        checks.integer("equity_trials", self.equity_trials, 1, 10_000_000)
        checks.integer("seed", self.seed, 0)
        checks.integer("shard_size", self.shard_size, 1, 1_000_000)
        checks.storage_dir("output_root", self.output_root)

    @property
    def deal_set(self) -> DealSetConfig:
        """What defines the deal set's content (its hash names the directory)."""
        table = self.preflop.table
        return DealSetConfig(
            deals=self.deals,
            table_size=self.table_size,
            equity_trials=self.equity_trials,
            seed=self.seed,
            shard_size=self.shard_size,
            raise_factor=self.preflop.raise_factor,
            call_factor=self.preflop.call_factor,
            preflop_table=None if table is None else str(self.storage.locate(table).absolute()),
        )
