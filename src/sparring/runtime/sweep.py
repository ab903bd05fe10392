"""Hyperparameter sweeps: every job of a Hydra multirun under one MLflow parent run.

``conf/sweep/*.yaml`` presets register ``SweepParent`` as a Hydra callback. When the multirun
starts it creates a parent run (tag ``sweep_id``) and exports its id; ``tracked_run`` then
nests each job's run under it and tags it with the same ``sweep_id``.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf

PARENT_ENV = "SPARRING_SWEEP_PARENT_RUN"
SWEPT_TAG = "sweep_params"  # on the parent: JSON {param: its values}
SWEEP_ENV = "SPARRING_SWEEP_ID"
SWEEP_ID_TAG = "sweep_id"  # on the parent and every child: the sweep's (or search's) id
PARENT_TAG = "sweep_parent"  # "true" on the parent run of a sweep or search


def create_parent(
    client: Any,
    experiment: str,
    sweep_id: str,
    pipeline: str,
    swept: dict,
    source: str | None = None,
    **tags: str,
) -> str:
    """The parent run of a sweep or search over ``pipeline``: named and tagged with its id,
    the swept keys (``swept``: key -> their values) and the standard source tags of the script
    that drives it (``source``, default the pipeline's own); returns its id."""
    from sparring.runtime.tracking import git_commit, source_tags

    commit = git_commit()
    run = client.create_run(
        experiment,
        run_name=sweep_id,
        tags={
            SWEEP_ID_TAG: sweep_id,
            "pipeline": pipeline,
            PARENT_TAG: "true",
            "git_commit": commit,
            **source_tags(source or pipeline, commit),
            SWEPT_TAG: json.dumps(swept),
            **tags,
        },
    )
    return str(run.info.run_id)


class SweepParent(Callback):
    """Hydra callback: one parent MLflow run around a multirun."""

    def __init__(self, name: str = "sweep") -> None:
        self.name = name
        self.client: Any = None  # an MlflowClient once the sweep starts
        self.run_id: str | None = None

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        from sparring.runtime.config import DEFAULT_TRACKING_URI, to_container
        from sparring.runtime.tracking import experiment_id, open_store

        tracking = to_container(config.get("tracking") or {})
        pipeline = str(config.hydra.job.name)
        uri = tracking.get("uri") or DEFAULT_TRACKING_URI
        client = self.client = open_store(uri)
        exp = experiment_id(client, tracking.get("experiment") or pipeline, tracking)
        sweep_id = f"{pipeline}-{self.name}-{time.strftime('%Y%m%d-%H%M%S')}"
        swept: Any = OmegaConf.to_container(config.hydra.sweeper.params)
        self.run_id = create_parent(client, exp, sweep_id, pipeline, swept)
        os.environ[PARENT_ENV] = self.run_id
        os.environ[SWEEP_ENV] = sweep_id
        print(f"sweep {sweep_id}: parent MLflow run {self.run_id}")

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        if self.client is not None and self.run_id is not None:
            self.client.set_terminated(self.run_id, status="FINISHED")
        os.environ.pop(PARENT_ENV, None)
        os.environ.pop(SWEEP_ENV, None)
