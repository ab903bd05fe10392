"""Where a driver's Ray runs, as a typed value (``conf/ray/*.yaml``); imports no Ray.

The schema of the ``ray`` section of every pipeline's config (``sparring.config`` composes it)
and what ``runtime.ray.session.init_ray`` takes: one declaration, handed down from the frame.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from sparring.runtime import checks
from sparring.runtime.config import to_container
from sparring.runtime.errors import ConfigError


@dataclass
class RayConfig:
    """``conf/ray/*.yaml``: null address = this machine's Ray (``shared``: the local head its
    pipelines share; false = embedded in the driver), ``auto`` = the running cluster, or
    ``ray://host:port``; inside a Ray job, null is the job's cluster.

    ``num_cpus``: an embedded Ray of exactly that many CPUs (null = every core, shared);
    ``include_dashboard``: an embedded Ray's dashboard; ``log_to_driver``: the workers' output
    on the driver's; ``namespace``: the Ray namespace of the driver's named actors."""

    address: str | None = None
    shared: bool = True
    num_cpus: int | None = None  # a number = an embedded Ray of that many CPUs; null = every core
    include_dashboard: bool = False
    log_to_driver: bool = True
    namespace: str = "sparring"

    def __post_init__(self) -> None:
        checks.optional_integer("num_cpus", self.num_cpus, 1)

    @classmethod
    def of(cls, value: RayConfig | Mapping[str, Any] | Any | None) -> RayConfig:
        """``value`` as a ``RayConfig``: itself, or a mapping (a Hydra node) of some of its
        fields, the rest their defaults; an unknown key is a ``ConfigError`` naming the allowed
        ones. None: every default."""
        if isinstance(value, cls):
            return value
        given = to_container(value or {})
        allowed = [f.name for f in fields(cls)]
        unknown = sorted(set(given) - set(allowed))
        if unknown:
            raise ConfigError.text(
                f"ray.{unknown[0]} is not a Ray setting; allowed: {', '.join(allowed)}"
            )
        try:
            return cls(**given)
        except ConfigError as exc:
            raise exc.under("ray") from None
