"""Hyperparameter sweeps: every job of a Hydra multirun under one MLflow parent run.

``conf/sweep/*.yaml`` presets register ``SweepParent`` as a Hydra callback. When the multirun
starts it creates a parent run (tag ``sweep_id``) and exports its id; ``tracked_run`` then
nests each job's run under it and tags it with the same ``sweep_id``.
"""

from __future__ import annotations

import os
import time
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf

from sparring.runtime.tracking.parent_runs import PARENT_ENV, SWEEP_ENV, create_parent

__all__ = ["SweepParent"]


class SweepParent(Callback):
    """Hydra callback: one parent MLflow run around a multirun."""

    def __init__(self, name: str = "sweep") -> None:
        self.name = name
        self.client: Any = None  # an MlflowClient once the sweep starts
        self.run_id: str | None = None

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        from sparring.launch.help import CHECK_ENV

        if os.environ.get(CHECK_ENV):  # --check: the jobs' configs only, no run
            return
        from sparring.runtime.tracking.runs import experiment_id, open_store
        from sparring.runtime.tracking.settings import TrackingConfig

        tracking = TrackingConfig.of(config.get("tracking"))
        pipeline = str(config.hydra.job.name)
        client = self.client = open_store(tracking.uri)
        exp = experiment_id(client, tracking.experiment or pipeline, tracking.artifact_root)
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
