"""Where a run is recorded, as a typed value (``conf/tracking/*.yaml``); imports no MLflow.

The schema of the ``tracking`` section of every pipeline's config (``sparring.config`` composes
it) and what ``runtime.tracking.runs`` takes: one declaration, handed down from the frame.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from sparring.runtime import checks
from sparring.runtime.config import DEFAULT_TRACKING_URI, to_container
from sparring.runtime.errors import ConfigError


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

    @classmethod
    def of(cls, value: TrackingConfig | Mapping[str, Any] | Any | None) -> TrackingConfig:
        """``value`` as a ``TrackingConfig``: itself, or a mapping (a Hydra node) of some of
        its fields, the rest their defaults (but no artifact root: MLflow's own); an unknown key
        is a ``ConfigError`` naming the allowed ones. None: the same for an empty mapping."""
        if isinstance(value, cls):
            return value
        given = {k: v for k, v in to_container(value or {}).items()}
        allowed = [f.name for f in fields(cls)]
        unknown = sorted(set(given) - set(allowed))
        if unknown:
            raise ConfigError.text(
                f"tracking.{unknown[0]} is not a tracking setting; allowed: {', '.join(allowed)}"
            )
        if given.get("uri") is None:
            given.pop("uri", None)  # (null reads as the default store)
        # A mapping that names no artifact root leaves it to MLflow (a tracking server's own,
        # served artifacts), as it always has: the schema's ``mlartifacts`` is the pipelines'
        # choice, made in conf/tracking/*.yaml, not a library caller's.
        given.setdefault("artifact_root", None)
        try:
            return cls(**given)
        except ConfigError as exc:
            raise exc.under("tracking") from None
