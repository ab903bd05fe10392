"""The ``tune`` pipeline: a hyperparameter search over another pipeline with Ray Tune.

The preset (``conf/hparams_search/*.yaml``) names the target pipeline, its objective and the space;
the driver checks the space against the target's schema, prepares shared inputs once, opens
one MLflow parent run and runs Tune with Optuna's TPE (or random or grid search) and, for
pipelines that report per step, ASHA early stopping. Each trial is the target's composed config
run as a Tune trial (``tuning.trial``) whose inner tasks share the cluster; ``concurrency``
trials run at once. A killed search resumes with Tune's restore (``search_id=... resume=true``)
and reruns no finished trial; the resume takes the preset, trials, concurrency, seed and
tracking keys stored when the search started (``tuning.state``). At the end: the best config
printed and written as an override file, every trial's last objective on its child run, the
objective per trial and the parameter importances logged to the parent run.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ray.tune import Callback
from rich.markup import escape

from sparring.config.tune import Algorithm, TuneConfig
from sparring.reporting.console import console, print_table
from sparring.runtime.checkout import conf_dir
from sparring.runtime.config import DEFAULT_TRACKING_URI, to_container
from sparring.runtime.errors import EXIT_INTERRUPTED, ConfigError
from sparring.runtime.parent_runs import create_parent
from sparring.runtime.ray_session import init_ray, job_page
from sparring.runtime.redact import redact_url
from sparring.runtime.signals import StoppedSaying
from sparring.runtime.tracking import (
    ENDED_TAG,
    STOPPED_TAG,
    RunLogger,
    bound_http_requests,
    command_line_overrides,
    experiment_id,
    open_store,
)
from sparring.tuning import state, summary, target
from sparring.tuning.space import grid, optuna_distributions, short_name
from sparring.tuning.trial import (
    COMPLETE,
    OBJECTIVE,
    STEP,
    TrialSetup,
    params_text,
    run_trial,
    short_value,
    trial_number,
)

TRIAL_MEMORY = 2**20  # bytes reserved per trial: a token (see _fit)


def run(job: TuneConfig) -> dict[str, Any]:
    """Run (or resume) the search; returns the parent run id, the search id, the best trial's
    params and ``metrics`` (``best_objective``, ``trials_finished``, ``trials_stopped``)."""
    if job.resume:
        job = _stored(job)  # before anything reads the preset: it is the stored one
    search = job.hparams_search
    conf = conf_dir()
    base_config = target.check(conf, search)  # one line for a bad space, before any trial
    objective = base_config.objective
    maximize = str(base_config.direction) == "maximize"
    pipeline = target.module(search.pipeline)
    steps = pipeline.steps(base_config) if hasattr(pipeline, "steps") else None
    if search.algorithm is Algorithm.grid and search.grid_size() != job.trials:
        console.print(
            f"note: algorithm grid runs its {search.grid_size()} points (trials={job.trials} "
            "is not used)"
        )
    search_id = job.search_id or f"{search.pipeline}-{search.name}-{time.strftime('%Y%m%d-%H%M%S')}"
    storage = Path(job.storage).resolve()
    path = storage / search_id
    _check_storage(path, search_id, job.resume)

    init_ray(job.ray)
    if hasattr(pipeline, "prepare"):
        pipeline.prepare(base_config)  # e.g. evolve's deal sets, generated once, not per trial
    tracking = job.tracking
    uri = tracking.uri or DEFAULT_TRACKING_URI
    bound_http_requests(to_container(tracking))
    client = open_store(uri)
    exp_name = tracking.experiment or search.pipeline
    exp = experiment_id(client, exp_name, {"artifact_root": tracking.artifact_root})
    parent = _parent_run(client, exp, path, job, search_id, objective)
    setup = _trial_setup(job, conf, uri, exp_name, parent, search_id, objective, steps)
    console.print(
        f"search {search_id}: {search.algorithm} over {len(search.space)} keys of "
        f"{search.pipeline}, {job.trials} trials, {job.concurrency} at once; "
        f"{'maximise' if maximize else 'minimise'} {objective}; parent MLflow run {parent}"
    )
    with _termination_as_tune_stop() as received:
        results = _fit(job, setup, path, maximize, steps)
    records = _records(results, setup.grid)
    _close_trials(client, exp, parent, records, objective, steps)
    _stop_if_interrupted(client, parent, job, records, search_id, received)
    return _finish(client, parent, exp, job, records, search_id, objective, maximize)


def exit_status(result: dict[str, Any]) -> int:
    """The command's exit status: 0 when some trial finished (a best config exists), else 1."""
    return 0 if result.get("best") is not None else 1


def _trial_setup(
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
def _termination_as_tune_stop() -> Iterator[list[int]]:
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


def _stop_if_interrupted(
    client, parent: str, job: TuneConfig, records, search_id: str, received: list[int]
) -> None:
    """A search that did not run all its trials was interrupted: the parent is KILLED and the
    resume command printed (the caller exits as after Ctrl-C, or with 128 + the signal that
    stopped it: ``received``)."""
    search = job.hparams_search
    unfinished = [r for r in records if r.state == "unfinished"]
    expected = search.grid_size() if search.algorithm is Algorithm.grid else job.trials
    if unfinished or len(records) < expected:
        client.set_terminated(parent, status="KILLED")
        said = f"terminated ({signal.Signals(received[0]).name})" if received else "interrupted"
        # the launcher prints it, once (it printed its own "interrupted" after this line)
        raise StoppedSaying(
            f"{said}; resume with: sparring tune search_id={search_id} resume=true"
            + (f" storage={job.storage}" if job.storage != "data/tune" else ""),
            128 + received[0] if received else EXIT_INTERRUPTED,
        )


def _stored(job: TuneConfig) -> TuneConfig:
    """The job of a resume: the saved search must exist, and its stored keys replace the
    job's (an override that would change one is one ``ConfigError``, before Ray starts)."""
    assert job.search_id is not None  # TuneConfig requires it with resume=true
    path = Path(job.storage).resolve() / job.search_id
    _check_storage(path, job.search_id, True)
    saved = state.load(path)
    return state.resumed(job, saved, command_line_overrides()) if saved else job


def _check_storage(path: Path, search_id: str, resume: bool) -> None:
    from ray.tune import Tuner

    exists = path.exists() and Tuner.can_restore(str(path))
    if resume and not exists:
        raise ConfigError("search_id", search_id, f"a search saved in {path.parent} to resume")
    if not resume and exists:
        raise ConfigError(
            "search_id", search_id, "a new id (that search exists: add resume=true to continue it)"
        )


def _parent_run(client, exp: str, path: Path, job: TuneConfig, search_id: str, objective: str):
    """The search's parent MLflow run: created, or on resume the one the search started. A new
    search stores its state (the parent and the keys a resume keeps) before any trial."""
    saved = state.load(path) if job.resume else None
    if saved is not None:
        parent = saved.parent_run_id
        client.update_run(parent, status="RUNNING")
        _close_interrupted(client, exp, parent)
        return parent
    search = job.hparams_search
    run_id = create_parent(
        client,
        exp,
        search_id,
        search.pipeline,
        {k: _space_text(s) for k, s in search.space.items()},
        source="tune",
        search_algorithm=str(search.algorithm),
        objective=objective,
    )
    logger = RunLogger(client, run_id, exp)
    logger.log_params(
        {
            "hparams_search": search.name,
            "algorithm": str(search.algorithm),
            "trials": job.trials,
            "concurrency": job.concurrency,
            "seed": job.seed,
            **{f"space.{k}": _space_text(s) for k, s in search.space.items()},
            **{f"fixed.{k}": v for k, v in search.fixed.items()},
        }
    )
    logger.outbox.close()  # the parent's params recorded (or one line) before any trial
    state.save(path, state.SearchState(run_id, search_id, state.kept_keys(job)))
    return run_id


def _space_text(spec) -> str:
    if spec.values is not None:
        return f"{spec.type}{list(spec.values)}"
    return f"{spec.type}[{spec.low:g}, {spec.high:g}]"


# How a child run left by a killed search is marked; the rerun of its trial has a run of its own.
# (Left RUNNING: marked when the resume starts; closed by its trial when the search's stop
# reached it: marked at the end, when its trial's rerun is known, see _record_runs.)
INTERRUPTED_NOTE = "search interrupted; the trial was rerun"
# ... and how it is marked at the end when the search was killed before Tune saved its trial: a
# restored search does not know that trial and runs a new one (its own run) in its place.
UNSAVED_NOTE = "search interrupted before it saved this trial; a new trial ran in its place"
# ... and a run that finished in that moment (a reused trial may take under a second): its
# numbers stand, but the restored search never saw them and ran a new trial in its place.
UNSAVED_FINISHED_NOTE = (
    "finished after the search's last save before it was interrupted: not in its results; "
    "a new trial ran in its place"
)


def _close_interrupted(client, exp: str, parent: str) -> None:
    """Children left RUNNING by the killed search: Tune reruns their trials from the start."""
    for child in client.search_runs(
        [exp],
        filter_string=f"tags.mlflow.parentRunId = '{parent}' and attributes.status = 'RUNNING'",
    ):
        client.set_tag(child.info.run_id, ENDED_TAG, INTERRUPTED_NOTE)
        client.set_terminated(child.info.run_id, status="KILLED")


def _fit(job: TuneConfig, setup: TrialSetup, path: Path, maximize: bool, steps: int | None):
    """Tune's fit, new or restored; returns its ResultGrid."""
    os.environ.setdefault("TUNE_GLOBAL_CHECKPOINT_S", "1")  # a kill loses at most ~1 s
    os.environ.setdefault("RAY_CHDIR_TO_TRIAL_DIR", "0")
    os.environ.setdefault("RAY_AIR_NEW_OUTPUT", "0")  # verbose=0 then prints nothing of Tune's
    from ray import tune

    # ... but its "Resume experiment with: Tuner.restore(...)" on an interrupt: the resume
    # line a user needs is Sparring's own (_stop_if_interrupted)
    logging.getLogger("ray.tune.tune").addFilter(_no_tuner_restore_hint)

    # A trial holds no CPU itself, only a token of memory (Tune wants some resource): its
    # inner tasks use the cluster's CPUs and concurrency caps the trials at once.
    trainable = tune.with_resources(
        tune.with_parameters(run_trial, setup=setup), {"cpu": 0, "memory": TRIAL_MEMORY}
    )
    if job.resume:
        tuner = tune.Tuner.restore(str(path), trainable, resume_unfinished=True)
        return tuner.fit()
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
            callbacks=[_Progress(setup.objective, setup.grid)],
            failure_config=tune.FailureConfig(max_failures=0),
        ),
    )
    return tuner.fit()


class _Progress(Callback):
    """One line per ended trial: its objective, how it ended, the best so far."""

    def __init__(self, objective: str, grid: bool) -> None:
        self.objective = objective
        self.grid = grid

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
        console.print(f"trial {number} failed: see {trial.path}")


def _records(results, grid: bool) -> list[summary.TrialRecord]:
    """Every trial as Tune ended it (the ResultGrid's Tune trials: status and last result)."""
    records = []
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
        records.append(
            summary.TrialRecord(
                number=trial_number(trial.trial_id, trial.experiment_tag, grid),
                trial_id=trial.trial_id,
                params=dict(trial.config),
                objective=last.get(OBJECTIVE),
                state=state,
                step=int(last.get(STEP) or 0),
            )
        )
    return sorted(records, key=lambda r: r.number)


def _finish(client, parent, exp, job: TuneConfig, records, search_id, objective, maximize):
    """Summary table, best config file, plots, importances, metrics; the parent is closed."""
    search = job.hparams_search
    logger = RunLogger(client, parent, exp)
    top = summary.best(records, maximize)
    keys = list(search.space)
    rows = [
        [
            r.number,
            r.state,
            summary.fmt(r.objective),
            r.step,
            *[short_value(r.params.get(k)) for k in keys],
        ]
        for r in records
    ]
    text = print_table(
        f"Search {search_id}: {objective} per trial",
        ["trial", "ended", "objective", "step", *[short_name(k, keys) for k in keys]],
        rows,
    )
    logger.log_text(text, "trials.txt")
    counts = {s: sum(1 for r in records if r.state == s) for s in ("finished", "stopped", "failed")}
    metrics: dict[str, float] = {f"trials_{s}": n for s, n in counts.items()}
    for r in records:
        if r.objective is not None:
            logger.log_metrics({"trial_objective": r.objective}, step=r.number)
    best_path = None
    if top is not None:
        metrics["best_objective"] = float(top.objective or 0.0)
        metrics["best_trial"] = top.number
        best_dir = Path(job.best_dir) if job.best_dir else Path(conf_dir()) / "best"
        best_path = summary.write_best(
            best_dir / f"{search_id}.yaml", target.best_keys(search), top, search_id, objective
        )
        logger.log_artifact(best_path)
        logger.set_tags({"best_trial": top.number, "best_config": str(best_path)})
    scores = summary.importances(records, search.space, maximize)
    metrics.update({f"importance/{k}": v for k, v in scores.items()})
    logger.log_metrics(metrics)
    with tempfile.TemporaryDirectory() as tmp:
        logger.log_artifact(
            summary.objective_plot(Path(tmp) / "objective.png", records, objective, maximize)
        )
        if scores:
            logger.log_artifact(summary.importance_plot(Path(tmp) / "importance.png", scores))
            logger.log_text(json.dumps(scores, indent=2), "importance.json")
    # A search none of whose trials finished found nothing: FAILED, and the command exits 1.
    logger.end("FINISHED" if top is not None else "FAILED")  # after every kept record
    if top is None:
        failed = [r for r in records if r.state == "failed"]
        console.print(
            f"no trial finished ({len(failed)} of {len(records)} failed): no best config; "
            f"each trial's error is in its directory under {job.storage}/{search_id}"
        )
    else:
        console.print(
            f"[bold]best:[/bold] trial {top.number}, {objective} {summary.fmt(top.objective)}"
        )
        for key, value in top.params.items():
            console.print(f"  {key}={short_value(value)}")
        rerun = f"python pipelines/{search.pipeline}.py +best={search_id}"
        if job.best_dir:
            rerun += f" 'hydra.searchpath=[file://{Path(job.best_dir).resolve().parent}]'"
        console.print(f"[bold]best config:[/bold] {best_path}")
        console.print(f"  rerun: {escape(rerun)}", soft_wrap=True)
    if scores:
        console.print(
            "importance: "
            + ", ".join(f"{k} {v:.2f}" for k, v in sorted(scores.items(), key=lambda kv: -kv[1]))
        )
    console.print(f"[bold]MLflow parent run:[/bold] {parent} in {redact_url(job.tracking.uri)}")
    if page := job_page():  # a search submitted as a Ray job: its page on the dashboard
        console.print(f"[bold]Ray job:[/bold] {page}", soft_wrap=True)
    return {
        "run_id": parent,
        "search_id": search_id,
        "best": top,
        "best_config": best_path,
        "trials": records,
        "importance": scores,
        "metrics": metrics,
    }


def _close_trials(client, exp: str, parent: str, records, objective: str, steps) -> None:
    """Each ended trial's child run gets its last reported objective and how it ended.

    Every trial with a report gets ``trial_objective`` and ``trial_step`` (the objective as
    Tune saw it, at its step); a stopped one also gets the objective under its own name at that
    step, which its run never logged (``compare --sweep`` reads it). A stopped or failed trial
    whose run is still RUNNING is closed here: Tune ends a stopped trial's process right after
    telling it to stop, often before the trial has recorded the stop itself; and when a later
    trial's session found that run first, it closed it as an orphan (KILLED, its driver gone),
    which is still a stopped trial's run to tag here. A run the interruption closed whose trial
    the restored search does not know (killed before Tune saved it) is marked so
    (``UNSAVED_NOTE``): no rerun of it exists, a new trial ran instead; so is a run that
    finished in that moment (``UNSAVED_FINISHED_NOTE``).

    An ended trial that a resume reran has a run per attempt (the rerun keeps the trial id).
    Only its record (``_record_runs``) gets the trial's objective and state; each other attempt
    was cut by the interruption and is marked as such (``_mark_cut``): KILLED, ``ENDED_TAG``
    ``INTERRUPTED_NOTE``, no ``trial_state``, no objective and no ``STOPPED_TAG``."""
    ended = {r.trial_id: r for r in records if r.state != "unfinished"}
    known = {r.trial_id for r in records}
    children = client.search_runs([exp], filter_string=f"tags.mlflow.parentRunId = '{parent}'")
    record_run = _record_runs(children, set(ended))
    for child in children:
        trial_id = child.data.tags.get("tune_trial")
        if child.data.tags.get(ENDED_TAG) == INTERRUPTED_NOTE:
            if trial_id not in known:  # Tune never saved it: nothing reran this trial
                client.set_tag(child.info.run_id, ENDED_TAG, UNSAVED_NOTE)
            continue  # a run of a trial cut and rerun
        if trial_id not in known and child.info.status == "FINISHED":
            client.set_tag(child.info.run_id, ENDED_TAG, UNSAVED_FINISHED_NOTE)
            continue
        record = ended.get(trial_id)
        if record is None:
            continue  # an unfinished trial
        run_id = child.info.run_id
        if run_id != record_run.get(trial_id):
            _mark_cut(client, child)  # an earlier attempt of a trial the resume reran
            continue
        if record.objective is not None:
            last = {"trial_objective": record.objective, "trial_step": float(record.step)}
            if objective not in child.data.metrics:
                last[objective] = record.objective
            closing = RunLogger(client, run_id, exp)
            closing.log_metrics(last, step=record.step)
            closing.outbox.close()  # sent, or one line (TrackingLost)
        client.set_tag(run_id, "trial_state", record.state)
        if record.state == "stopped" and STOPPED_TAG not in child.data.tags:
            client.set_tag(run_id, STOPPED_TAG, f"asha at step {record.step}/{steps}")
        if child.info.status == "RUNNING" and record.state in ("stopped", "failed"):
            status = "KILLED" if record.state == "stopped" else "FAILED"
            client.set_terminated(run_id, status=status)


def _record_runs(children, trial_ids: set[str]) -> dict[str, str]:
    """trial id -> the one run that records that trial, for each of ``trial_ids`` with a run.

    The restored search reruns a trial the interruption cut from its start, under the same
    trial id, in a new run: the record is the trial's newest run, a FINISHED one first (a
    trial whose run had finished reports that run's result and opens none:
    ``trial.finished_before``); a run the resume already marked cut (``INTERRUPTED_NOTE``) is
    never one. A cut run's own status and tags do not tell it apart: when the search's
    graceful stop (Ctrl-C, SIGTERM) reached a trial at a report, Tune ended it with the same
    ``SystemExit`` as an ASHA stop, and the run recorded itself KILLED with ``STOPPED_TAG``."""
    best: dict[str, Any] = {}
    for child in children:
        trial_id = child.data.tags.get("tune_trial")
        if trial_id not in trial_ids or child.data.tags.get(ENDED_TAG) == INTERRUPTED_NOTE:
            continue
        key = (child.info.status == "FINISHED", child.info.start_time or 0)
        if trial_id not in best or key > best[trial_id][0]:
            best[trial_id] = (key, child.info.run_id)
    return {trial_id: run_id for trial_id, (_, run_id) in best.items()}


def _mark_cut(client, child) -> None:
    """Record ``child`` as an attempt the interruption cut (its trial's rerun is another run):
    KILLED with ``INTERRUPTED_NOTE``; a ``STOPPED_TAG`` it gave itself when the search's stop
    reached it is removed (no scheduler stopped it). Its numbers are left as it logged them."""
    if child.info.status == "FINISHED":
        return  # a second finished run of one trial: its numbers stand (not expected to occur)
    run_id = child.info.run_id
    client.set_tag(run_id, ENDED_TAG, INTERRUPTED_NOTE)
    if STOPPED_TAG in child.data.tags:
        client.delete_tag(run_id, STOPPED_TAG)
    if child.info.status == "RUNNING":
        client.set_terminated(run_id, status="KILLED")


__all__ = ["exit_status", "run"]
