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


class SweepParent(Callback):
    """Hydra callback: one parent MLflow run around a multirun."""

    def __init__(self, name: str = "sweep") -> None:
        self.name = name
        self.client: Any = None  # an MlflowClient once the sweep starts
        self.run_id: str | None = None

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        from sparring.runtime.config import DEFAULT_TRACKING_URI, to_container
        from sparring.runtime.tracking import experiment_id, git_commit, open_store, source_tags

        tracking = to_container(config.get("tracking") or {})
        pipeline = str(config.hydra.job.name)
        uri = tracking.get("uri") or DEFAULT_TRACKING_URI
        client = self.client = open_store(uri)
        exp = experiment_id(client, tracking.get("experiment") or pipeline, tracking)
        sweep_id = f"{pipeline}-{self.name}-{time.strftime('%Y%m%d-%H%M%S')}"
        run = client.create_run(
            exp,
            run_name=sweep_id,
            tags={
                "sweep_id": sweep_id,
                "pipeline": pipeline,
                "sweep_parent": "true",
                "git_commit": git_commit(),
                **source_tags(pipeline, git_commit()),
                SWEPT_TAG: json.dumps(OmegaConf.to_container(config.hydra.sweeper.params)),
            },
        )
        self.run_id = run.info.run_id
        os.environ[PARENT_ENV] = self.run_id
        os.environ[SWEEP_ENV] = sweep_id
        print(f"sweep {sweep_id}: parent MLflow run {self.run_id}")

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        if self.client is not None and self.run_id is not None:
            self.client.set_terminated(self.run_id, status="FINISHED")
        os.environ.pop(PARENT_ENV, None)
        os.environ.pop(SWEEP_ENV, None)
