"""What defines a deal set: a pure value whose hash names the set's directory.

A deal set lives in ``<root>/<data_hash>/part-XXXXX.parquet`` (``shard_path``); the root is a
local path or a storage URI. Generating, reusing and loading sets is ``frame.deal_set_store``'s job.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from sparring.runtime.config import config_hash
from sparring.runtime.storage.location import Location, locate

Root = str | Path | Location  # a local path or a storage URI

__all__ = ["DealSetConfig", "Root"]


@dataclass(frozen=True)
class DealSetConfig:
    """Everything that defines a deal set's content (its hash names the directory)."""

    deals: int
    table_size: int
    equity_trials: int
    seed: int
    shard_size: int
    raise_factor: float
    call_factor: float
    preflop_table: str | None

    @property
    def data_hash(self) -> str:
        return config_hash(asdict(self))

    @property
    def shards(self) -> list[tuple[int, int, int]]:
        """(shard index, first deal id, count) of every shard."""
        return [
            (i, start, min(self.shard_size, self.deals - start))
            for i, start in enumerate(range(0, self.deals, self.shard_size))
        ]

    def directory(self, root: Root) -> Location:
        return locate(root) / self.data_hash

    def shard_path(self, root: Root, index: int) -> Location:
        return self.directory(root) / f"part-{index:05d}.parquet"
