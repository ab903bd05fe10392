"""Compare MLflow runs: the params that differ (swept ones first), chosen metrics, a plot.

Used by ``pipelines/compare.py`` and ``sparring compare``; reads only (no new MLflow run). The
runs are an experiment's (optionally filtered), one sweep's (``sweep``: the children of a sweep
or search parent, in any experiment) or the runs behind a registered model's versions
(``model``). The table comes from ``mlflow.search_runs``; it shows every differing param under
a short unique name with a legend, never a cut name, and a metric that no run has is refused
with the closest names. The bar chart goes to ``output_dir`` (a path or storage URI; the
config's ``storage`` says how an object store is reached). Neither Ray nor an MLflow run: this
body stays outside ``services.frame.pipeline_session``, which opens a run.
"""

from __future__ import annotations

import ast
import difflib
import json
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mlflow
import pandas as pd
from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient

from sparring.config.compare import CompareConfig
from sparring.reporting.console import console, print_table
from sparring.reporting.plots import grouped_bars
from sparring.runtime.errors import ConfigError, UsageError
from sparring.runtime.parent_runs import PARENT_TAG, SWEPT_TAG
from sparring.runtime.storage import Location, locate


@dataclass
class Comparison:
    runs: list[dict[str, Any]]  # run_id, name, label, status, params that differ, metrics
    differing: list[str]  # swept params first, then the others by name
    swept: list[str]
    metrics: list[str]
    legend: dict[str, str]  # column header -> full param name
    plot: Location | None
    text: str


def short_names(keys: list[str]) -> dict[str, str]:
    """A header per param: its shortest dotted suffix that no other key shares
    (``ga.p_mutation`` -> ``p_mutation``; ``retrain.checkpoint_root`` and ``checkpoint_root``
    keep enough to differ)."""
    names = {}
    for key in keys:
        parts = key.split(".")
        for n in range(1, len(parts) + 1):
            tail = ".".join(parts[-n:])
            if all(not (o == tail or o.endswith("." + tail)) for o in keys if o != key):
                names[key] = tail
                break
        else:
            names[key] = key
    return names


def _swept_params(client: MlflowClient, frame: pd.DataFrame) -> list[str]:
    """The params the runs' common sweep varied (from its parent run), [] if none."""
    column = "tags.mlflow.parentRunId"
    if column not in frame or frame[column].isna().any() or frame[column].nunique() != 1:
        return []
    try:
        parent = client.get_run(str(frame[column].iloc[0]))
    except MlflowException:
        return []
    text = parent.data.tags.get(SWEPT_TAG, "")
    try:
        swept = json.loads(text)
    except ValueError:
        try:  # older parents wrote the dict's repr
            swept = ast.literal_eval(text) if text else {}
        except (ValueError, SyntaxError):
            swept = {}
    return [str(k) for k in swept] if isinstance(swept, dict) else []


def _model_runs(client: MlflowClient, model: str) -> dict[str, str]:
    """run id -> ``v3 @champion`` for every version of registered model ``model``."""
    try:
        registered = client.get_registered_model(model)
    except MlflowException:
        names = [m.name for m in client.search_registered_models() if "claim." not in m.name]
        raise ConfigError(
            "model", model, f"a registered model: one of {', '.join(names) or 'none'}"
        ) from None
    aliases: dict[str, list[str]] = {}
    for alias, version in (registered.aliases or {}).items():
        aliases.setdefault(str(version), []).append(alias)
    labels = {}
    for version in client.search_model_versions(f"name = '{model}'"):
        if version.run_id:
            tag = " ".join(f"@{a}" for a in sorted(aliases.get(str(version.version), [])))
            labels[version.run_id] = f"v{version.version}" + (f" {tag}" if tag else "")
    if not labels:
        raise UsageError(f"model {model!r} has no versions with a source run")
    return labels


def _search(
    client: MlflowClient,
    experiment: str | None,
    filter_string: str,
    metric: str,
    max_runs: int,
    all_experiments: bool,
) -> pd.DataFrame:
    experiment_ids = None
    if experiment is not None:
        exp = client.get_experiment_by_name(experiment)
        if exp is None:
            names = [e.name for e in client.search_experiments()]
            raise ConfigError(
                "experiment",
                experiment,
                f"an experiment in {client.tracking_uri}: one of {', '.join(names) or 'none'}",
            )
        experiment_ids = [exp.experiment_id]
    try:
        frame = mlflow.search_runs(
            experiment_ids=experiment_ids,
            filter_string=filter_string,
            order_by=[f"metrics.`{metric}` DESC"],
            max_results=max_runs,
            search_all_experiments=all_experiments,
        )
    except MlflowException as exc:
        raise ConfigError(
            "filter", filter_string, f"an MLflow search filter ({exc.message})"
        ) from None
    assert isinstance(frame, pd.DataFrame)
    column = f"tags.{PARENT_TAG}"
    return frame[frame[column] != "true"] if column in frame else frame


def _check_metrics(frame: pd.DataFrame, wanted: list[str], where: str) -> None:
    known = sorted(c[len("metrics.") :] for c in frame.columns if c.startswith("metrics."))
    for name in wanted:
        column = f"metrics.{name}"
        if column not in frame or frame[column].isna().all():
            close = difflib.get_close_matches(name, known, n=4, cutoff=0.5)
            hint = (
                f"close matches: {', '.join(close)}"
                if close
                else (f"known: {', '.join(known[:8])}" if known else "these runs logged no metrics")
            )
            raise UsageError(f"no run {where} has metric {name!r}; {hint}")


def compare(
    uri: str,
    experiment: str | None,
    metric: str,
    metrics: list[str] | None = None,
    filter_string: str = "",
    max_runs: int = 20,
    output_dir: str | Path | Location = "data/compare",
    sweep: str | None = None,
    model: str | None = None,
) -> Comparison:
    """Rank runs by ``metric`` (descending) and show what differs between them.

    The runs are ``sweep``'s children (a sweep or search id) or the runs behind ``model``'s
    registered versions, in whatever experiment they are; without either, ``experiment``'s.
    Prints the table, its notes and where the plot went; returns them all."""
    if sweep is not None or model is not None:
        experiment = None  # the sweep id or the model says which runs
    elif experiment is None:
        raise UsageError("name an experiment, a sweep (--sweep ID) or a model (--model NAME)")
    mlflow.set_tracking_uri(uri)
    client = MlflowClient(tracking_uri=uri)
    clauses = [filter_string] if filter_string.strip() else []
    if sweep is not None:
        clauses.append(f"tags.sweep_id = '{sweep}'")
    labels: dict[str, str] = {}
    if model is not None:
        labels = _model_runs(client, model)
        clauses.append(f"attributes.run_id IN ({', '.join(repr(r) for r in labels)})")
    where = f"in experiment {experiment!r}" if experiment else "found"
    if sweep is not None:
        where += f" of sweep {sweep!r}"
    if model is not None:
        where += f" behind model {model!r}"
    frame = _search(client, experiment, " and ".join(clauses), metric, max_runs, experiment is None)
    if frame.empty:
        raise UsageError(f"no runs {where} match filter {filter_string!r}")
    wanted = [metric, *[m for m in (metrics or []) if m != metric]]
    _check_metrics(frame, wanted, where)

    params = sorted(c[len("params.") :] for c in frame.columns if c.startswith("params."))
    differing = [k for k in params if frame[f"params.{k}"].fillna("").astype(str).nunique() > 1]
    swept = [k for k in _swept_params(client, frame) if k in differing]
    differing = swept + [k for k in differing if k not in swept]
    headers = short_names(differing)
    runs = []
    for _, row in frame.iterrows():
        run_id = str(row["run_id"])
        name = labels.get(run_id) or str(row.get("tags.mlflow.runName") or run_id[:8])
        runs.append(
            {
                "run_id": run_id,
                "name": name,
                "status": row["status"],
                "params": {k: _text(row.get(f"params.{k}")) for k in differing},
                "metrics": {m: _number(row.get(f"metrics.{m}")) for m in wanted},
            }
        )
    columns = ["#", "run", *[headers[k] + (" *" if k in swept else "") for k in differing], *wanted]
    rows = [
        [
            i + 1,
            r["name"],
            *[r["params"][k] for k in differing],
            *[("-" if r["metrics"][m] is None else f"{r['metrics'][m]:,.4g}") for m in wanted],
        ]
        for i, r in enumerate(runs)
    ]
    title = experiment or (f"sweep {sweep}" if sweep else f"model {model}")
    text = print_table(f"{title}: {len(runs)} runs by {metric}", columns, rows)
    legend = {headers[k]: k for k in differing if headers[k] != k}
    notes = []
    if legend:
        notes.append("columns: " + "; ".join(f"{h} = {k}" for h, k in legend.items()))
    if swept:
        notes.append("* swept by the sweep")
    notes.append("- = the run did not log this metric")
    for note in notes:
        console.print(note)
    text += "\n".join(notes) + "\n"
    plot = _plot(runs, metric, title, output_dir)
    return Comparison(runs, differing, swept, wanted, legend, plot, text)


def _text(value: Any) -> str:
    return "" if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)


def _number(value: Any) -> float | None:
    return None if value is None or pd.isna(value) else float(value)


def _plot(
    runs: list[dict[str, Any]], metric: str, title: str, output_dir: str | Path | Location
) -> Location:
    """The bar chart of ``metric`` per run, written to ``output_dir`` (a path or storage URI)."""
    plot = locate(output_dir) / f"{title.replace(' ', '-')}-{metric}.png".replace("/", "_")
    values = [r["metrics"][metric] for r in runs]
    with tempfile.TemporaryDirectory() as tmp:
        drawn = grouped_bars(
            Path(tmp) / plot.name,
            [f"#{i + 1} " + textwrap.fill(r["name"], 22) for i, r in enumerate(runs)],
            {metric: [v if v is not None else 0.0 for v in values]},
            f"{title}: {metric} by run (a run without it shows 0)",
            metric,
            "run (# = rank in the table)",
        )
        plot.write_bytes(drawn.read_bytes())
    console.print(f"[bold]plot:[/bold] {plot.display()}")
    return plot


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
    )
