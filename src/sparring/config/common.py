"""Config sections every pipeline shares: where Ray runs and where MLflow records."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from sparring.runtime.errors import ConfigError
from sparring.runtime.storage.location import Location, StorageOptions, locate


class Direction(StrEnum):
    """Whether a sweep wants the objective large or small."""

    maximize = "maximize"
    minimize = "minimize"


@dataclass
class ObjectiveConfig:
    """What a sweep optimises: the name of one of the run's metrics (``run(config)["metrics"]``)
    and its direction. The pipeline's Hydra main returns that metric's value, so any Hydra
    sweeper (and ``sparring tune``) can drive the pipeline."""

    objective: str | None = None
    direction: Direction = Direction.maximize


@dataclass
class StorageConfig:
    """``storage.*``: how object stores (``s3://``, ``gs://`` roots) are reached. Credentials
    come from each process's standard environment (``AWS_ACCESS_KEY_ID``, instance roles...)."""

    endpoint: str | None = None  # an S3-compatible store, e.g. http://10.0.0.5:9000
    region: str | None = None  # null = AWS_REGION, else us-east-1

    def __post_init__(self) -> None:
        if self.endpoint is not None and "://" not in self.endpoint:
            raise ConfigError("endpoint", self.endpoint, "a URL such as http://127.0.0.1:9000")

    def locate(self, where: str | Location) -> Location:
        """The Location of a root of this config: the storage options travel with it (a
        Ray task that gets it writes where the driver reads)."""
        return locate(where, StorageOptions(self.endpoint, self.region))
