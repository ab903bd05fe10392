"""Which runs a comparison shows: the MLflow queries behind ``reporting.compare``.

The runs of an experiment (optionally filtered), of one sweep (the children of a sweep or
search parent, in any experiment) or behind a registered model's versions; sweep parents left
out and one run per trial of a resumed search; the metrics checked (a metric no run has is
refused with the closest names); each parent's label and the params it swept; the direction
of a pipeline's objective; and which differing params are about where runs ran or wrote.
Reads only.
"""

from __future__ import annotations

import ast
import json
from typing import Any

import mlflow
import pandas as pd
from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient

from sparring.runtime.config import close_names
from sparring.runtime.errors import ConfigError, UsageError
from sparring.runtime.redact import redact_url
from sparring.runtime.tracking.params import is_infrastructure
from sparring.runtime.tracking.parent_runs import PARENT_TAG, SWEEP_ID_TAG, SWEPT_TAG

PARENT_COLUMN = "tags.mlflow.parentRunId"  # a run's parent in ``mlflow.search_runs``'s frame


def model_runs(client: MlflowClient, model: str) -> dict[str, str]:
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


def search_runs(
    client: MlflowClient,
    experiment: str | None,
    filter_string: str,
    metric: str,
    max_runs: int,
    all_experiments: bool,
    ascending: bool = False,
) -> pd.DataFrame:
    """The runs ``filter_string`` selects in ``experiment`` (or in every experiment), best
    ``metric`` first (``ascending``: smallest first), at most ``max_runs``: no sweep parent,
    and one run per trial of a search (``one_run_per_trial``)."""
    experiment_ids = None
    if experiment is not None:
        exp = client.get_experiment_by_name(experiment)
        if exp is None:
            names = [e.name for e in client.search_experiments()]
            raise ConfigError(
                "experiment",
                experiment,
                f"an experiment in {redact_url(client.tracking_uri)}: "
                f"one of {', '.join(names) or 'none'}",
            )
        experiment_ids = [exp.experiment_id]
    try:
        frame = mlflow.search_runs(
            experiment_ids=experiment_ids,
            filter_string=filter_string,
            order_by=[f"metrics.`{metric}` {'ASC' if ascending else 'DESC'}"],
            max_results=max_runs,
            search_all_experiments=all_experiments,
        )
    except MlflowException as exc:
        raise ConfigError(
            "filter", filter_string, f"an MLflow search filter ({exc.message})"
        ) from None
    assert isinstance(frame, pd.DataFrame)
    column = f"tags.{PARENT_TAG}"
    return one_run_per_trial(frame[frame[column] != "true"] if column in frame else frame)


_TRIAL = "tags.tune_trial"  # tuning.trial.TRIAL_TAG (importing that module imports Ray)
_TRIAL_STATE = "tags.trial_state"  # what the search's end tags a trial's record with


def one_run_per_trial(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with one run per trial of a ``sparring tune`` search, in its order: a trial a
    resumed search reran has a run per attempt (one trial id); the one kept is its record, the
    run tagged ``trial_state``, then a FINISHED one, then the newest. Runs of no trial stay."""
    if _TRIAL not in frame:
        return frame
    best: dict[tuple[str, str], tuple[tuple[bool, bool, float], Any]] = {}
    for index, row in frame.iterrows():
        trial = cell_text(row.get(_TRIAL))
        if not trial:
            continue
        start = row.get("start_time")
        rank = (
            bool(cell_text(row.get(_TRIAL_STATE))),
            row.get("status") == "FINISHED",
            pd.Timestamp(start).timestamp() if start is not None and pd.notna(start) else 0.0,
        )
        key = (cell_text(row.get(PARENT_COLUMN)), trial)
        if key not in best or rank > best[key][0]:
            best[key] = (rank, index)
    kept = {index for _, index in best.values()}
    trials = frame[_TRIAL].map(cell_text)
    return frame[(trials == "") | frame.index.isin(kept)]


def check_metrics(frame: pd.DataFrame, wanted: list[str], where: str) -> None:
    known = sorted(c[len("metrics.") :] for c in frame.columns if c.startswith("metrics."))
    for name in wanted:
        column = f"metrics.{name}"
        if column not in frame or frame[column].isna().all():
            raise UsageError(f"no run {where} has metric {name!r}; {close_names(name, known)}")


def _swept_params(parent: Any) -> list[str]:
    """The params a sweep or search parent run says it varied, [] if it says none."""
    text = parent.data.tags.get(SWEPT_TAG, "")
    try:
        swept = json.loads(text)
    except ValueError:
        try:  # older parents wrote the dict's repr
            swept = ast.literal_eval(text) if text else {}
        except (ValueError, SyntaxError):
            swept = {}
    return [str(k) for k in swept] if isinstance(swept, dict) else []


def parents(client: MlflowClient, frame: pd.DataFrame) -> dict[str, tuple[str, list[str]]]:
    """parent run id -> (its label: the sweep id or the parent's name, the params it swept)
    for every parent of the runs in ``frame``."""
    if PARENT_COLUMN not in frame:
        return {}
    found: dict[str, tuple[str, list[str]]] = {}
    for parent_id in frame[PARENT_COLUMN].dropna().unique():
        try:
            parent = client.get_run(str(parent_id))
        except MlflowException:  # deleted: the id still groups its children
            found[str(parent_id)] = (str(parent_id)[:8], [])
            continue
        label = parent.data.tags.get(SWEEP_ID_TAG) or parent.info.run_name or str(parent_id)[:8]
        found[str(parent_id)] = (label, _swept_params(parent))
    return found


ORDERS = ("auto", "desc", "asc")


def is_ascending(client: MlflowClient, experiment: str | None, metric: str, order: str) -> bool:
    """Whether the best runs have the smallest ``metric`` (see ``compare``'s ``order``)."""
    if order not in ORDERS:
        raise ConfigError("order", order, f"one of {', '.join(ORDERS)}")
    if order != "auto":
        return order == "asc"
    exp = client.get_experiment_by_name(experiment) if experiment else None
    found = mlflow.search_runs(
        experiment_ids=[exp.experiment_id] if exp else None,
        search_all_experiments=exp is None,
        filter_string=f"params.objective = '{metric}'",
        max_results=1,
    )
    if not isinstance(found, pd.DataFrame) or found.empty:
        return False
    return str(found.iloc[0].get("params.direction", "maximize")) == "minimize"


def about_infrastructure(frame: pd.DataFrame, key: str) -> bool:
    """Whether param ``key`` says where the runs ran or wrote (its name, or any run's value, a
    path or URI: ``runtime.tracking.params.is_infrastructure``)."""
    values = frame[f"params.{key}"].dropna().astype(str)
    return is_infrastructure(key) or any(is_infrastructure(key, v) for v in values)


def cell_text(value: Any) -> str:
    """A frame's cell as text: ``""`` for a missing value (None or NaN)."""
    return "" if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)


def cell_number(value: Any) -> float | None:
    """A frame's cell as a number: None for a missing value (None or NaN)."""
    return None if value is None or pd.isna(value) else float(value)


__all__ = [
    "ORDERS",
    "PARENT_COLUMN",
    "about_infrastructure",
    "cell_number",
    "cell_text",
    "check_metrics",
    "is_ascending",
    "model_runs",
    "one_run_per_trial",
    "parents",
    "search_runs",
]
