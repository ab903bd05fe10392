"""A Tune actor reused after its trial was stopped early runs the next trial to its end.

Tune stops a trial by raising SystemExit inside ``tune.report``. Our trial turned it into
``StopRun`` (so the pipeline records a stop) and then returned; Ray's function wrapper then
reported once more, a report nobody answers, so the stopped trial's thread never ended and the
reused actor could not be reset: the next trial failed ("Could not re-use actor") or hung.
``tuning.trial.run_reported`` now ends the thread with SystemExit. Without that fix the second
trial below is ERROR.
"""

from __future__ import annotations

import os

from ray import tune
from ray.tune.schedulers import FIFOScheduler, TrialScheduler

from sparring.runtime.progress import report_step
from sparring.tuning.trial import COMPLETE, OBJECTIVE, STEP, run_reported

STEPS = 3


def stepped_pipeline(config: dict) -> dict:
    """A pipeline of three steps that reports each (as evolve does per generation)."""
    for step in range(1, STEPS + 1):
        report_step(step, STEPS, lambda step=step: {"value": float(step), "pid": os.getpid()})
    return {"metrics": {"value": float(STEPS)}}


def trainable(config: dict) -> None:
    result = run_reported(stepped_pipeline, config, "value", report_steps=True)
    if result is None:  # how a stopped trial ended before the fix: it returned
        return
    tune.report(
        {OBJECTIVE: result["metrics"]["value"], STEP: STEPS, COMPLETE: 1, "pid": os.getpid()}
    )


class StopAt(FIFOScheduler):
    """Stops a trial whose config says ``stop_at`` at that step (ASHA's decision, made sure)."""

    def on_trial_result(self, tune_controller, trial, result):
        stop_at = trial.config.get("stop_at")
        if stop_at is not None and result.get(STEP, 0) >= stop_at:
            return TrialScheduler.STOP
        return TrialScheduler.CONTINUE


def test_an_actor_reused_after_an_early_stop_runs_the_next_trial_to_its_end(ray_session, tmp_path):
    tuner = tune.Tuner(
        tune.with_resources(trainable, {"cpu": 0, "memory": 1}),
        param_space={"stop_at": tune.grid_search([1, None])},
        tune_config=tune.TuneConfig(
            metric=OBJECTIVE,
            mode="max",
            scheduler=StopAt(),
            max_concurrent_trials=1,
            reuse_actors=True,
            time_budget_s=120,  # a hang fails the test instead of stalling the suite
        ),
        run_config=tune.RunConfig(
            name="reuse",
            storage_path=str(tmp_path),
            verbose=0,
            failure_config=tune.FailureConfig(max_failures=0),
        ),
    )
    results = tuner.fit()
    trials = sorted(results._experiment_analysis.trials, key=lambda t: t.config["stop_at"] is None)
    stopped, full = trials
    assert stopped.status == "TERMINATED" and stopped.last_result[COMPLETE] == 0
    assert stopped.last_result[STEP] == 1
    assert full.status == "TERMINATED", results.errors
    assert full.last_result[COMPLETE] == 1 and full.last_result[STEP] == STEPS
    assert full.last_result["pid"] == stopped.last_result["pid"]  # the same actor, reused


def test_a_trial_whose_run_finished_before_a_kill_is_its_recorded_result(tmp_path):
    """A search killed after a trial's child run FINISHED but before Tune saved the trial:
    on resume the trial reports that run's numbers instead of running again. A run cut short
    (KILLED), one without the objective, or another search's run with the same trial id is
    no result: those trials run again."""
    from mlflow.tracking import MlflowClient

    from sparring.tuning.trial import TRIAL_TAG, finished_before

    uri = f"sqlite:///{tmp_path / 'm.db'}"
    client = MlflowClient(uri)
    exp = client.create_experiment("evolve", artifact_location=str(tmp_path / "a"))
    parent, other = (client.create_run(exp).info.run_id for _ in range(2))

    def child(under: str, trial: str, status: str, metrics: dict[str, float]) -> None:
        run = client.create_run(exp, tags={"mlflow.parentRunId": under, TRIAL_TAG: trial})
        for key, value in metrics.items():
            client.log_metric(run.info.run_id, key, value)
        client.set_terminated(run.info.run_id, status)

    child(parent, "t_done", "FINISHED", {"bb100": 1.5, "best_fitness": 0.25})
    child(parent, "t_cut", "KILLED", {"bb100": 9.0})
    child(parent, "t_none", "FINISHED", {"best_fitness": 0.5})
    child(other, "t_other", "FINISHED", {"bb100": 2.0})
    assert finished_before(uri, parent, "t_done", "bb100") == {"bb100": 1.5, "best_fitness": 0.25}
    for trial in ("t_cut", "t_none", "t_other", "t_never"):
        assert finished_before(uri, parent, trial, "bb100") is None, trial
