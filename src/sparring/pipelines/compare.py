"""The ``compare`` pipeline: rank the runs of an experiment, a sweep or a registered model by a
metric, show the params that differ, and plot the metric per run.

The comparison itself (the query, the table, the formats for scripts, the plot) is
``reporting.compare``, which ``sparring compare`` calls too. Reads MLflow only: neither Ray nor
a run of its own, so this body stays outside ``frame.session.pipeline_session``.
"""

from __future__ import annotations

from sparring.config.compare import CompareConfig, ParamsShown
from sparring.reporting.compare import Comparison, compare


def run(config: CompareConfig) -> Comparison:
    """The comparison the config asks for (reads MLflow only; no new run); the plot goes to
    ``output_dir`` with the config's storage options."""
    return compare(
        config.tracking.uri,
        config.experiment,
        config.metric,
        list(config.metrics),
        config.filter,
        config.max_runs,
        config.storage.locate(config.output_dir),
        sweep=config.sweep_id,
        model=config.model,
        output_format=config.format,
        all_params=config.params is ParamsShown.all,
    )


__all__ = ["run"]
