"""The value of the metric a config names as its ``objective``: what a Hydra sweeper or a Ray
Tune trial reads from a pipeline's results."""

from __future__ import annotations

import difflib
import sys
from collections.abc import Mapping
from typing import Any

from sparring.runtime.errors import ConfigError

__all__ = ["MissingObjective", "missing_objective", "objective_value"]


class MissingObjective(ConfigError):
    """The objective a config names is not a metric its run reported: every run of the same
    config would miss it too, so a search stops at the first."""


def missing_objective(
    name: str, metrics: Mapping[str, Any] | None, what: str = "a metric of this run"
) -> MissingObjective:
    """The one-line error for ``name`` missing from a run's ``metrics`` (``what`` they are),
    with the closest names they hold."""
    known = sorted(metrics or {})
    close = difflib.get_close_matches(name, known, n=3) or known[:5]
    hint = f", e.g. {', '.join(close)}" if close else " (this run reported none)"
    return MissingObjective("objective", name, f"{what}{hint}")


def objective_value(config: Any, result: Any) -> float | None:
    """The value of the metric ``config.objective`` names in ``result["metrics"]`` (None when
    the config names none); a name the run did not produce is a one-line error listing the
    closest ones."""
    name = getattr(config, "objective", None)
    if name is None:
        return None
    metrics = result.get("metrics") if isinstance(result, Mapping) else None
    if not metrics or name not in metrics:
        error = missing_objective(name, metrics)
        if _sweeping():
            raise error  # a sweeper cannot go on without the number
        print(f"warning: {error} (nothing for a sweeper to read)", file=sys.stderr)
        return None
    return float(metrics[name])


def _sweeping() -> bool:
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    return HydraConfig.initialized() and HydraConfig.get().mode == RunMode.MULTIRUN
