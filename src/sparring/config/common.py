"""Config sections every pipeline shares: where Ray runs and where MLflow records."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from sparring.config import checks
from sparring.runtime.config import DEFAULT_TRACKING_URI
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
class TrackingConfig:
    """``conf/tracking/*.yaml``: the MLflow store, experiment and parent run."""

    uri: str = DEFAULT_TRACKING_URI
    artifact_root: str | None = "mlartifacts"
    experiment: str | None = None  # null = the pipeline's name
    parent_run_id: str | None = None
    run_name: str | None = None  # null = pipeline, config hash and overrides
    tags: dict[str, str] = field(default_factory=dict)  # more tags on the run
    # An http(s) server that stops answering: each request is tried 1 + http_retries times,
    # each attempt waiting at most http_timeout_s; then the run's records wait in the driver
    # and are sent when the server answers again (the work goes on meanwhile).
    http_retries: int = 2
    http_timeout_s: int = 15

    def __post_init__(self) -> None:
        checks.path_text("uri", self.uri)
        checks.integer("http_retries", self.http_retries, 0, 10)
        checks.integer("http_timeout_s", self.http_timeout_s, 1, 600)
        if self.experiment is not None:  # a filter value and a directory of artifacts
            checks.name("experiment", self.experiment)


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
