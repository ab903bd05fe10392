"""Compare the runs of an MLflow experiment: the params that differ, chosen metrics, a plot.

Used by ``pipelines/compare.py`` and ``sparring compare``; reads only (no new MLflow run).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient

from sparring.config.compare import CompareConfig
from sparring.pipelines.plots import grouped_bars
from sparring.pipelines.report import console, print_table
from sparring.runtime.errors import ConfigError, UsageError


@dataclass
class Comparison:
    runs: list[dict[str, Any]]  # run_id, name, status, params that differ, metrics
    differing: list[str]
    metrics: list[str]
    plot: Path | None
    text: str


def compare(
    uri: str,
    experiment: str,
    metric: str,
    metrics: list[str] | None = None,
    filter_string: str = "",
    max_runs: int = 20,
    output_dir: str | Path = "data/compare",
) -> Comparison:
    """Rank the finished runs of ``experiment`` by ``metric`` and show what differs."""
    client = MlflowClient(tracking_uri=uri)
    exp = client.get_experiment_by_name(experiment)
    if exp is None:
        names = [e.name for e in client.search_experiments()]
        raise ConfigError(
            "experiment", experiment, f"an experiment in {uri}: one of {', '.join(names) or 'none'}"
        )
    wanted = [metric, *[m for m in (metrics or []) if m != metric]]
    try:
        paged = client.search_runs(
            [exp.experiment_id],
            filter_string=filter_string,
            order_by=[f"metrics.`{metric}` DESC"],
            max_results=max_runs,
        )
    except MlflowException as exc:
        raise ConfigError(
            "filter", filter_string, f"an MLflow search filter ({exc.message})"
        ) from None
    found = [r for r in paged if r.data.tags.get("sweep_parent") != "true"]
    if not found:
        raise UsageError(f"no runs in experiment {experiment!r} match filter {filter_string!r}")
    keys = sorted({k for r in found for k in r.data.params})
    differing = [k for k in keys if len({r.data.params.get(k) for r in found}) > 1]
    runs = []
    for r in found:
        runs.append(
            {
                "run_id": r.info.run_id,
                "name": r.info.run_name or r.info.run_id[:8],
                "status": r.info.status,
                "params": {k: r.data.params.get(k, "") for k in differing},
                "metrics": {m: r.data.metrics.get(m) for m in wanted},
            }
        )
    columns = ["run", *differing[:8], *wanted]
    rows = [
        [
            r["name"],
            *[r["params"][k] for k in differing[:8]],
            *[("-" if r["metrics"][m] is None else f"{r['metrics'][m]:,.4g}") for m in wanted],
        ]
        for r in runs
    ]
    text = print_table(f"{experiment}: {len(runs)} runs by {metric}", columns, rows)
    if len(differing) > 8:
        console.print(f"({len(differing) - 8} more differing params: {', '.join(differing[8:])})")
    plot = None
    values = [r["metrics"][metric] for r in runs]
    if any(v is not None for v in values):
        out = Path(output_dir)
        out.mkdir(parents=True, exist_ok=True)
        plot = grouped_bars(
            out / f"{experiment}-{metric}.png",
            [r["name"] for r in runs],
            {metric: [v if v is not None else 0.0 for v in values]},
            f"{experiment}: {metric}",
            metric,
        )
        console.print(f"[bold]plot:[/bold] {plot.resolve()}")
    return Comparison(runs, differing, wanted, plot, text)


def run(config: CompareConfig) -> Comparison:
    """The comparison the config asks for (reads MLflow only; no new run)."""
    return compare(
        config.tracking.uri,
        config.experiment,
        config.metric,
        list(config.metrics),
        config.filter,
        config.max_runs,
        config.output_dir,
    )
