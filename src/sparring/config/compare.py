"""``conf/compare.yaml``: compare the runs of an MLflow experiment."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from sparring.config import checks
from sparring.config.common import StorageConfig
from sparring.runtime.tracking.settings import TrackingConfig


class OutputFormat(StrEnum):
    """How the comparison prints: a table fitted to the terminal, or for scripts."""

    table = "table"
    csv = "csv"
    json = "json"
    markdown = "markdown"


class ParamsShown(StrEnum):
    """Which differing params the comparison shows."""

    differing = "differing"  # those that change what is computed (no ray.*, paths, ...)
    all = "all"  # every differing param, infrastructure and paths too


@dataclass
class CompareConfig:
    """Rank an experiment's runs by ``metric``; show the params that differ and ``metrics``."""

    experiment: str = "evolve"  # not used with sweep_id or model: they say which runs
    metric: str = "champion_bb100"  # ranked by this (descending)
    metrics: list[str] = field(default_factory=list)
    filter: str = ""  # an MLflow search filter, e.g. "tags.sweep_id = 'evolve-...'"
    max_runs: int = 20
    output_dir: str = "data/compare"
    sweep_id: str | None = None  # a sweep or search id: compare its runs (`sweep` is a group)
    model: str | None = None  # a registered model: compare the runs behind its versions
    format: OutputFormat = OutputFormat.table  # table (fits the terminal), csv, json, markdown
    params: ParamsShown = ParamsShown.differing  # all: also ray.*, tracking.*, storage.*, paths
    tracking: TrackingConfig = field(default_factory=TrackingConfig)
    storage: StorageConfig = field(default_factory=StorageConfig)

    def __post_init__(self) -> None:
        checks.path_text("experiment", self.experiment)
        checks.path_text("metric", self.metric)
        checks.integer("max_runs", self.max_runs, 1, 100_000)
        checks.storage_dir("output_dir", self.output_dir)
