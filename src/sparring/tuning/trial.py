"""One trial of a search: the target pipeline run with sampled keys, inside a Tune trial.

The trial composes the target's config (preset overrides + the sampled keys), records it as an
MLflow child run of the search's parent, and runs the pipeline's ``run`` in this process; the
pipeline's inner tasks fan out on the same Ray cluster. A pipeline that reports per step
(evolve: each generation) reports the objective to Tune's scheduler, which may stop it early;
the run is then marked stopped (``sparring.stopped_by``), not failed. The last report carries
``complete = 1``, which is how the driver tells finished trials from stopped ones.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sparring.config.objective import missing_objective
from sparring.frame.session import sharing_cluster
from sparring.runtime.progress import StopRun, reporting
from sparring.tuning import target
from sparring.tuning.space import overrides, plain, short_name

OBJECTIVE = "objective"  # the key Tune and the searcher optimise
STEP = "step"  # the time attribute of ASHA: the pipeline's step (evolve: generation)
COMPLETE = "complete"  # 1 on the report of a trial that ran to its end
TRIAL_TAG = "tune_trial"  # the child run's tag: Tune's trial id
NUMBER_TAG = "trial_number"
# what a scheduler's objective must be (evolve reports fewer numbers a generation than at its end)
STEP_METRIC = (
    "a metric reported at every step, which ASHA reads (or hparams_search.scheduler.asha=false)"
)


@dataclass(frozen=True)
class TrialSetup:
    """What every trial of one search shares (sent once through Ray's object store)."""

    conf_dir: str
    cwd: str  # the driver's working directory: relative paths mean the same in every trial
    pipeline: str
    base: tuple[str, ...]  # overrides of every trial (preset + tracking)
    objective: str
    parent_run_id: str
    search_id: str
    steps: int | None  # steps the pipeline reports (None: it reports only its result)
    report_steps: bool = True  # False without a scheduler: no per-step objective to compute
    grid: bool = False  # a grid search (Tune numbers its trials from 0)
    runs_at_once: int = 1  # trials sharing the cluster: each sizes its fan-out to its share


def trial_number(trial_id: str, tagged: str, grid: bool = False) -> int:
    """The trial's 1-based number in its search. Tune writes its index after the id in the
    trial's directory name and experiment tag (``run_trial_0225bdb0_3_ga.p_mutation=...``):
    counted from 1 for a searcher's trials, from 0 for a grid's (Tune's own variant generator)."""
    match = re.search(rf"(?:^|{re.escape(trial_id)}_)(\d+)_", tagged + "_")
    return int(match.group(1)) + (1 if grid else 0) if match else 0


def params_text(params: Mapping[str, Any]) -> str:
    """``p_mutation=0.21 tournament=3``: short key names, floats to 4 significant digits."""
    keys = list(params)
    return " ".join(f"{short_name(k, keys)}={short_value(v)}" for k, v in params.items())


def run_name(number: int, params: Mapping[str, Any]) -> str:
    """``trial 4 p_mutation=0.21 tournament=3``, at most 120 characters."""
    name = f"trial {number} {params_text(params)}"
    return name if len(name) <= 120 else name[:119] + "…"


def short_value(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def numeric(metrics: Mapping[str, Any]) -> dict[str, float]:
    """The finite numbers of a metrics mapping (what Tune can compare)."""
    out = {}
    for key, value in metrics.items():
        is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if is_number and math.isfinite(value):
            out[key] = float(value)
    return out


def run_reported(
    run: Callable[[Any], dict[str, Any]], config: Any, objective: str, report_steps: bool
) -> dict[str, Any]:
    """``run(config)`` inside a Tune trial, each step but the last reported to Tune's scheduler
    (the step's numbers, ``objective`` also under ``OBJECTIVE``) when ``report_steps``.

    Tune stops a trial by raising ``SystemExit`` inside ``tune.report``. It reaches the
    pipeline as ``StopRun`` (its run is recorded as stopped, not failed) and leaves here as
    ``SystemExit`` again, so the trial's thread ends the way Tune expects. Returning instead
    made Ray's function wrapper report once more (a duplicate result nobody answers): the
    thread never ended, and a reused actor could not be reset for the next trial
    (``tests/tuning/test_trial_reuse.py``)."""
    from ray import tune

    def listener(step: int, total: int, metrics: Any) -> None:
        if step >= total or not report_steps:
            return  # the last step's numbers are the run's result, reported by the caller
        reported = metrics()
        if objective not in reported:  # at the first step, not after the whole run
            raise missing_objective(objective, reported, STEP_METRIC)
        numbers = numeric(reported)
        report = {**numbers, OBJECTIVE: float(reported[objective]), STEP: step, COMPLETE: 0}
        try:
            tune.report(report)
        except SystemExit:  # Tune ends a stopped trial's thread with sys.exit at a report
            raise StopRun(f"asha at step {step}/{total}") from None

    try:
        with reporting(listener):
            return run(config)
    except StopRun:
        raise SystemExit(0) from None


def finished_before(
    tracking_uri: str, parent_run_id: str, trial_id: str, objective: str
) -> dict[str, float] | None:
    """The numbers of trial ``trial_id``'s child run when an earlier attempt ran it to its end,
    else None.

    A search killed after a trial's run ended in MLflow but before Tune saved that trial (Tune
    saves its state every few seconds) restores the trial as unfinished and starts it again;
    its finished run is its result. A run without ``objective`` (cut before its last step,
    stopped, failed) is not one: the trial runs again."""
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri)
    experiment = client.get_run(parent_run_id).info.experiment_id
    runs = client.search_runs(
        [experiment],
        filter_string=(
            f"tags.mlflow.parentRunId = '{parent_run_id}' and tags.{TRIAL_TAG} = '{trial_id}' "
            "and attributes.status = 'FINISHED'"
        ),
        max_results=1,
    )
    numbers = numeric(runs[0].data.metrics) if runs else {}
    return numbers if objective in numbers else None


def run_trial(params: dict[str, Any], setup: TrialSetup) -> None:
    """The Tune function trainable (``tune.with_parameters(run_trial, setup=...)``)."""
    from ray import tune

    os.chdir(setup.cwd)  # Tune would run it in the trial's own directory
    context = tune.get_context()
    trial_id = context.get_trial_id()
    number = trial_number(trial_id, Path(context.get_trial_dir()).name, setup.grid)
    values = {k: plain(v) for k, v in params.items()}
    cfg = target.compose(setup.conf_dir, setup.pipeline, [*setup.base, *overrides(values)])
    cfg.tracking.parent_run_id = setup.parent_run_id
    cfg.tracking.run_name = run_name(number, values)
    cfg.tracking.tags = {
        "sweep_id": setup.search_id,
        TRIAL_TAG: trial_id,
        NUMBER_TAG: str(number),
    }
    from sparring.config import to_typed

    config: Any = to_typed(cfg)
    recorded = finished_before(config.tracking.uri, setup.parent_run_id, trial_id, setup.objective)
    if recorded is not None:  # run to its end by an earlier attempt: its result, not a rerun
        tune.report(
            {**recorded, OBJECTIVE: recorded[setup.objective], STEP: setup.steps or 1, COMPLETE: 1}
        )
        return
    pipeline = target.module(setup.pipeline)
    with sharing_cluster(setup.runs_at_once):
        result = run_reported(pipeline.run, config, setup.objective, setup.report_steps)
    reported = result.get("metrics") or {}
    if setup.objective not in reported:  # may stop the search (tuner._StopOnMissingObjective)
        raise missing_objective(setup.objective, reported)
    value = float(reported[setup.objective])  # NaN included: this trial's value, not a typo
    numbers = numeric(reported)
    tune.report({**numbers, OBJECTIVE: value, STEP: setup.steps or 1, COMPLETE: 1})
