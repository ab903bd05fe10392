"""A search's MLflow runs: the parent run (created with the search's params, or reopened on a
resume), and at the end each trial's child run closed with its last objective and how it ended.

A resume reruns a trial that the interruption cut, under the same trial id, in a run of its
own: the runs of the cut attempts are marked (``INTERRUPTED_NOTE``), so that each trial has one
run that records it (``close_trials``) and ``compare --sweep`` lists it once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sparring.config.tune import TuneConfig
from sparring.runtime.tracking.parent_runs import create_parent
from sparring.runtime.tracking.runs import ENDED_TAG, STOPPED_TAG, RunLogger
from sparring.tuning import state

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


def parent_run(client, exp: str, path: Path, job: TuneConfig, search_id: str, objective: str):
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


def _close_interrupted(client, exp: str, parent: str) -> None:
    """Children left RUNNING by the killed search: Tune reruns their trials from the start."""
    for child in client.search_runs(
        [exp],
        filter_string=f"tags.mlflow.parentRunId = '{parent}' and attributes.status = 'RUNNING'",
    ):
        client.set_tag(child.info.run_id, ENDED_TAG, INTERRUPTED_NOTE)
        client.set_terminated(child.info.run_id, status="KILLED")


def close_trials(client, exp: str, parent: str, records, objective: str, steps) -> None:
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


__all__ = [
    "INTERRUPTED_NOTE",
    "UNSAVED_FINISHED_NOTE",
    "UNSAVED_NOTE",
    "close_trials",
    "parent_run",
]
