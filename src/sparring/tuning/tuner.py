"""Ray Tune run for a search: the trials' shared setup, the Tuner built (or restored) and fit,
one line per ended trial, and Tune's trials read back as ``summary.TrialRecord``.

The searcher is Optuna's TPE or random sampler (``algorithm``), or Tune's own grid; a pipeline
that reports per step gets ASHA early stopping when the preset asks for it. While Tune runs,
SIGTERM and SIGHUP stop it as Ctrl-C does (``termination_as_tune_stop``): Tune saves its state
one last time, so a resume (``resume``) reruns no finished trial.
"""

from __future__ import annotations

import logging
import os
import re
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ray.tune import Callback
from ray.tune.stopper import Stopper

from sparring.config.tune import Algorithm, TuneConfig
from sparring.reporting.console import console
from sparring.tuning import summary, target
from sparring.tuning.space import grid, optuna_distributions
from sparring.tuning.trial import (
    COMPLETE,
    OBJECTIVE,
    STEP,
    TrialSetup,
    params_text,
    run_trial,
    trial_number,
)

TRIAL_MEMORY = 2**20  # bytes reserved per trial: a token (see fit)


def trial_setup(
    job: TuneConfig,
    conf: str,
    uri: str,
    exp_name: str,
    parent: str,
    search_id: str,
    objective: str,
    steps: int | None,
) -> TrialSetup:
    """What every trial process needs: the target's overrides, where to record, the parent."""
    search, tracking = job.hparams_search, job.tracking
    artifact_root = [f"tracking.artifact_root={tracking.artifact_root}"]
    return TrialSetup(
        conf_dir=conf,
        cwd=os.getcwd(),
        pipeline=search.pipeline,
        base=(
            *target.base_overrides(search),
            f"tracking.uri={uri}",
            f"tracking.experiment={exp_name}",
            *(artifact_root if tracking.artifact_root else []),
        ),
        objective=objective,
        parent_run_id=parent,
        search_id=search_id,
        steps=steps,
        report_steps=bool(search.scheduler.asha and steps),
        grid=search.algorithm is Algorithm.grid,
        runs_at_once=job.concurrency,
    )


def _no_tuner_restore_hint(record: logging.LogRecord) -> bool:
    """Drop Tune's own resume hint (a Python call no user of the command line makes)."""
    return "Tuner.restore(" not in record.getMessage()


@contextmanager
def termination_as_tune_stop() -> Iterator[list[int]]:
    """While Tune runs, SIGTERM and SIGHUP stop the search as Ctrl-C does: through Tune's own
    graceful stop (a SIGINT to this process: Tune saves its state one last time and returns),
    not by an exception raised somewhere inside Tune's loop. Yields the signals received."""
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return

    def stop(signum: int, frame: Any) -> None:
        received.append(signum)
        os.kill(os.getpid(), signal.SIGINT)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield received
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def fit(
    job: TuneConfig, setup: TrialSetup, path: Path, maximize: bool, steps: int | None
) -> tuple[Any, str | None]:
    """Tune's fit, new or restored; returns its ResultGrid, and the line saying the objective
    is not a metric of the target when the search stopped on it (``missing_line``), else
    None."""
    os.environ.setdefault("TUNE_GLOBAL_CHECKPOINT_S", "1")  # a kill loses at most ~1 s
    os.environ.setdefault("RAY_CHDIR_TO_TRIAL_DIR", "0")
    os.environ.setdefault("RAY_AIR_NEW_OUTPUT", "0")  # verbose=0 then prints nothing of Tune's
    from ray import tune

    # ... but its "Resume experiment with: Tuner.restore(...)" on an interrupt: the resume
    # line a user needs is Sparring's own (resume.stop_if_interrupted)
    logging.getLogger("ray.tune.tune").addFilter(_no_tuner_restore_hint)

    # A trial holds no CPU itself, only a token of memory (Tune wants some resource): its
    # inner tasks use the cluster's CPUs and concurrency caps the trials at once.
    trainable = tune.with_resources(
        tune.with_parameters(run_trial, setup=setup), {"cpu": 0, "memory": TRIAL_MEMORY}
    )
    if job.resume:  # (the stored run config brings its callback and stopper back)
        tuner = tune.Tuner.restore(str(path), trainable, resume_unfinished=True)
        results = tuner.fit()
        return results, missing_line(results)
    search = job.hparams_search
    mode = "max" if maximize else "min"
    param_space: dict[str, Any] = {}
    search_alg = None
    if search.algorithm is Algorithm.grid:
        param_space = grid(search)
        samples = 1
    else:
        import optuna
        from ray.tune.search.optuna import OptunaSearch

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        sampler = (
            optuna.samplers.TPESampler(seed=job.seed)
            if search.algorithm is Algorithm.tpe
            else optuna.samplers.RandomSampler(seed=job.seed)
        )
        search_alg = OptunaSearch(
            space=optuna_distributions(search.space), metric=OBJECTIVE, mode=mode, sampler=sampler
        )
        samples = job.trials
    scheduler = None
    rule = search.scheduler
    if rule.asha and steps:
        from ray.tune.schedulers import ASHAScheduler

        scheduler = ASHAScheduler(
            time_attr=STEP,
            max_t=rule.max_t or steps,
            grace_period=min(rule.grace_period, rule.max_t or steps),
            reduction_factor=rule.reduction_factor,
        )
    progress = _Progress(setup.objective, setup.grid)
    tuner = tune.Tuner(
        trainable,
        param_space=param_space,
        tune_config=tune.TuneConfig(
            metric=OBJECTIVE,
            mode=mode,
            search_alg=search_alg,
            scheduler=scheduler,
            num_samples=samples,
            max_concurrent_trials=job.concurrency,
            # One process runs trial after trial (a fresh one costs ~10 s of imports). A trial
            # stopped early ends its thread so the process can be reset (trial.run_reported);
            # a trial a kill cut after its run finished is not run again on resume
            # (trial.finished_before).
            reuse_actors=True,
        ),
        run_config=tune.RunConfig(
            name=path.name,
            storage_path=str(path.parent),
            verbose=0,
            callbacks=[progress],
            stop=_StopOnMissingObjective(progress),
            failure_config=tune.FailureConfig(max_failures=0),
        ),
    )
    results = tuner.fit()
    return results, missing_line(results)


class _Progress(Callback):
    """One line per ended trial: its objective, how it ended, the best so far."""

    def __init__(self, objective: str, grid: bool) -> None:
        self.objective = objective
        self.grid = grid
        self.missing: str | None = None  # a MissingObjective line before any objective came
        self.reported = False  # some trial reported the objective

    def on_trial_result(self, iteration, trials, trial, result, **info) -> None:
        self.reported = self.reported or OBJECTIVE in result

    def on_trial_complete(self, iteration, trials, trial, **info) -> None:
        result = trial.last_result or {}
        value = result.get(OBJECTIVE)
        how = "finished" if result.get(COMPLETE) else f"stopped at step {result.get(STEP)}"
        number = trial_number(trial.trial_id, trial.experiment_tag, self.grid)
        console.print(
            f"trial {number} {how}: {self.objective} "
            f"{summary.fmt(value)}  {params_text(trial.config)}",
            soft_wrap=True,
        )

    def on_trial_error(self, iteration, trials, trial, **info) -> None:
        number = trial_number(trial.trial_id, trial.experiment_tag, self.grid)
        # the trial's traceback, as Tune wrote it in the trial's local directory (the copy in
        # the search's storage comes later): its last line is a MissingObjective's
        found = MISSING_LINE.search(_text(trial.error_file))
        if found:
            if not self.reported:  # a name no trial has reported: a typo, not this trial's luck
                self.missing = self.missing or found.group(0)
            console.print(f"trial {number} failed: {found.group(0)}", soft_wrap=True)
            return
        console.print(f"trial {number} failed: see {trial.path}")


def _text(path: str | None) -> str:
    try:
        return Path(path).read_text(errors="replace") if path else ""
    except OSError:
        return ""


MISSING_LINE = re.compile(r"objective=\S+ is not allowed: expected a metric [^\n]*")


def missing_line(results) -> str | None:
    """The ``MissingObjective`` line of a search that stopped on one: a trial failed with it
    and no trial reported the objective (else None: a search that did score trials is not
    ended by one that lacked the metric)."""
    found = None
    for result in results:
        if OBJECTIVE in (result.metrics or {}):
            return None
        if found is None and result.error is not None:
            match = MISSING_LINE.search(str(result.error))
            found = match.group(0) if match else None
    return found


class _StopOnMissingObjective(Stopper):
    """Ends the whole search once a trial found the objective missing from its run's metrics
    before any trial reported it (``_Progress.missing``): a name the target does not report,
    which the other trials would miss too."""

    def __init__(self, progress: _Progress) -> None:
        self.progress = progress

    def __call__(self, trial_id: str, result: dict) -> bool:
        return False

    def stop_all(self) -> bool:
        return self.progress.missing is not None


def records(results, grid: bool) -> list[summary.TrialRecord]:
    """Every trial as Tune ended it (the ResultGrid's Tune trials: status and last result)."""
    found = []
    for trial in results._experiment_analysis.trials:  # no public list of Trial objects
        last = trial.last_result or {}
        if trial.status == "ERROR":
            state = "failed"
        elif trial.status != "TERMINATED":
            state = "unfinished"
        elif last.get(COMPLETE):
            state = "finished"
        else:
            state = "stopped"
        found.append(
            summary.TrialRecord(
                number=trial_number(trial.trial_id, trial.experiment_tag, grid),
                trial_id=trial.trial_id,
                params=dict(trial.config),
                objective=last.get(OBJECTIVE),
                state=state,
                step=int(last.get(STEP) or 0),
            )
        )
    return sorted(found, key=lambda r: r.number)


__all__ = ["TRIAL_MEMORY", "fit", "records", "termination_as_tune_stop", "trial_setup"]
