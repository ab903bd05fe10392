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

This body only strings the steps together: what a target offers is its traits
(``pipelines.PIPELINES``); Tune itself is ``tuning.tuner``, the resume ``tuning.resume``, the
MLflow runs ``tuning.runs`` and the end of the search ``tuning.report``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from sparring.config.tune import Algorithm, TuneConfig
from sparring.pipelines import PIPELINES
from sparring.reporting.console import console
from sparring.runtime.checkout import conf_dir
from sparring.runtime.config import DEFAULT_TRACKING_URI
from sparring.runtime.errors import ConfigError
from sparring.runtime.ray.session import init_ray
from sparring.runtime.tracking.runs import bound_http_requests, experiment_id, open_store
from sparring.tuning import report, resume, runs, target, tuner


def run(job: TuneConfig) -> dict[str, Any]:
    """Run (or resume) the search; returns the parent run id, the search id, the best trial's
    params and ``metrics`` (``best_objective``, ``trials_finished``, ``trials_stopped``)."""
    if job.resume:
        job = resume.stored(job)  # before anything reads the preset: it is the stored one
    search = job.hparams_search
    conf = conf_dir()
    base_config = target.check(conf, search)  # one line for a bad space, before any trial
    objective = base_config.objective
    maximize = str(base_config.direction) == "maximize"
    traits = PIPELINES[search.pipeline]
    pipeline = target.module(search.pipeline)
    steps = pipeline.steps(base_config) if traits.steps else None
    if search.algorithm is Algorithm.grid and search.grid_size() != job.trials:
        console.print(
            f"note: algorithm grid runs its {search.grid_size()} points (trials={job.trials} "
            "is not used)"
        )
    search_id = job.search_id or f"{search.pipeline}-{search.name}-{time.strftime('%Y%m%d-%H%M%S')}"
    storage = Path(job.storage).resolve()
    path = storage / search_id
    resume.check_storage(path, search_id, job.resume)

    init_ray(job.ray)
    if traits.prepare:
        pipeline.prepare(base_config)  # e.g. evolve's deal sets, generated once, not per trial
    tracking = job.tracking
    uri = tracking.uri or DEFAULT_TRACKING_URI
    bound_http_requests(tracking)
    client = open_store(uri)
    exp_name = tracking.experiment or search.pipeline
    exp = experiment_id(client, exp_name, tracking.artifact_root)
    parent = runs.parent_run(client, exp, path, job, search_id, objective)
    setup = tuner.trial_setup(job, conf, uri, exp_name, parent, search_id, objective, steps)
    console.print(
        f"search {search_id}: {search.algorithm} over {len(search.space)} keys of "
        f"{search.pipeline}, {job.trials} trials, {job.concurrency} at once; "
        f"{'maximise' if maximize else 'minimise'} {objective}; parent MLflow run {parent}"
    )
    with tuner.termination_as_tune_stop() as received:
        results, missing = tuner.fit(job, setup, path, maximize, steps)
    records = tuner.records(results, setup.grid)
    runs.close_trials(client, exp, parent, records, objective, steps)
    if missing is not None:  # a name the target does not report: no trial can be scored
        client.set_terminated(parent, status="FAILED")
        raise ConfigError.text(f"{missing} (the search stopped: no trial reported it)")
    resume.stop_if_interrupted(client, parent, job, records, search_id, received)
    return report.finish(client, parent, exp, job, records, search_id, objective, maximize)


def exit_status(result: dict[str, Any]) -> int:
    """The command's exit status: 0 when some trial finished (a best config exists), else 1."""
    return 0 if result.get("best") is not None else 1


__all__ = ["exit_status", "run"]
