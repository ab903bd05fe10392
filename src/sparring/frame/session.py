"""The pipeline frame: what every pipeline body does around its own logic, done once.

``with pipeline_session(job, "equity") as session:`` connects to Ray (``job.ray``), opens the
MLflow run with the project's conventions (``tracking.tracked_run``: params = the flattened
config, standard tags, KILLED on Ctrl-C or SIGTERM, FAILED on an error), and on a clean exit
prints where everything went: every output the body named (``session.output`` or a
``session.write``), the run id, how to open the UI and, inside a Ray job, the dashboard's
page of the job. The body keeps only its own logic:

    with pipeline_session(job, "equity", tags={"data_hash": job.data_hash}) as session:
        rows = parallel_map(...)
        session.write(PREFLOP_SPEC, rows, session.locate(job.output), label="preflop table",
                      config_hash=job.data_hash, seed=job.seed)
        session.log_metrics(metrics)
    return session.results(metrics)

Storage travels as a value: ``session.locate(uri)`` is the Location of a root with the job's
``storage`` options (endpoint, region), and a Location carries them into every Ray task.
Exit codes and one-line errors are ``launch.app``'s (the Hydra entry above this frame).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import pyarrow as pa

from sparring.reporting.console import print_locations, print_table
from sparring.runtime.config import config_hash, to_container
from sparring.runtime.ray.session import init_ray, job_page
from sparring.runtime.storage.datasets import DatasetSpec, write_table
from sparring.runtime.storage.location import Location, locate
from sparring.runtime.tracking.runs import RunLogger, tracked_run

# the sections that say where a job runs and is recorded, not what it computes
RESULTS_HASH_EXCLUDES = ("ray", "tracking")

__all__ = [
    "RESULTS_HASH_EXCLUDES",
    "Session",
    "pipeline_session",
    "results_hash",
    "sharing_cluster",
]

# How many runs of this process share the cluster at once (a search's trials side by side).
_RUNS_AT_ONCE: ContextVar[int] = ContextVar("runs_at_once", default=1)


@contextmanager
def sharing_cluster(runs: int) -> Iterator[None]:
    """Sessions opened inside (in this thread) count ``cores`` as their share of the cluster:
    its CPUs over ``runs``. A search runs trials side by side; a trial that fanned out over
    every CPU left the others only its serial moments (``benchmarks/tune.py``)."""
    token = _RUNS_AT_ONCE.set(max(1, runs))
    try:
        yield
    finally:
        _RUNS_AT_ONCE.reset(token)


def results_hash(job: Any) -> str:
    """The hash of what a job computes: its config without where it runs (``ray``) or where it
    is recorded (``tracking``). Two runs with the same results hash write the same results."""
    kept = {k: v for k, v in to_container(job).items() if k not in RESULTS_HASH_EXCLUDES}
    return config_hash(kept)


class Session:
    """One pipeline run in progress: its job, its MLflow run, the Ray resources it has and the
    outputs it has named (printed when the session closes)."""

    def __init__(self, job: Any, pipeline: str, run: RunLogger, resources: Mapping[str, Any]):
        self.job = job
        self.pipeline = pipeline
        self.run = run
        self.resources = dict(resources)
        self.outputs: dict[str, Any] = {}

    @property
    def run_id(self) -> str:
        return self.run.run_id

    @property
    def cores(self) -> int:
        """The CPUs this run may fill: the Ray cluster's, over the runs sharing it at once
        (``sharing_cluster``; 1 outside a search), at least 1. It sizes fan-out only: results
        are the same for any number of tasks."""
        return max(1, int(self.resources.get("CPU", 1)) // _RUNS_AT_ONCE.get())

    def locate(self, where: str | Location) -> Location:
        """The Location of a root of the job, with the job's storage options."""
        storage = getattr(self.job, "storage", None)
        return storage.locate(where) if storage is not None else locate(where)

    def output(self, label: str, where: Any) -> Any:
        """Name an output for the closing summary (``label: where``); returns ``where``."""
        self.outputs[label] = where
        return where

    def write(
        self,
        spec: DatasetSpec,
        rows: Sequence[Mapping[str, Any]] | pa.Table,
        where: Location,
        *,
        label: str | None = None,
        config_hash: str,
        seed: int | None = None,
        extra: dict[str, Any] | None = None,
    ) -> pa.Table:
        """Write a dataset atomically with its contract (``spec``'s schema and metadata, a
        digest beside it); returns the table written. ``label`` names it in the summary."""
        table = (
            rows
            if isinstance(rows, pa.Table)
            else pa.Table.from_pylist(list(rows), schema=spec.schema)
        )
        write_table(table, where, spec, config_hash=config_hash, seed=seed, extra=extra)
        if label is not None:
            self.output(label, where)
        return table

    def table(
        self,
        title: str,
        columns: Sequence[str],
        rows: Sequence[Sequence[Any]],
        artifact: str | None = None,
    ) -> str:
        """Print a result table; with ``artifact``, keep its text in the run as that file."""
        text = print_table(title, columns, rows)
        if artifact is not None:
            self.run.log_text(text, artifact)
        return text

    def log_metrics(self, metrics: Mapping[str, float], step: int = 0) -> None:
        self.run.log_metrics(metrics, step=step)

    def log_plot(self, draw: Callable[[Path], Path], artifact_path: str | None = None) -> None:
        """Draw a plot into a temporary directory (``draw(directory) -> file``) and keep it in
        the run."""
        with tempfile.TemporaryDirectory() as tmp:
            self.run.log_artifact(draw(Path(tmp)), artifact_path)

    def results(self, metrics: Mapping[str, Any], **more: Any) -> dict[str, Any]:
        """What ``run`` returns: the run id, the headline ``metrics`` and anything ``more``."""
        return {"run_id": self.run_id, "metrics": dict(metrics), **more}


@contextmanager
def pipeline_session(
    job: Any,
    pipeline: str,
    *,
    tags: Mapping[str, Any] | None = None,
    run_name: str | None = None,
    uses_ray: bool = True,
) -> Iterator[Session]:
    """Ray (unless ``uses_ray`` is false), an MLflow run named ``pipeline`` and, on a clean
    exit, the summary of where everything went. ``tags`` and ``run_name`` go to the run."""
    resources = init_ray(job.ray) if uses_ray else {}
    with tracked_run(job, pipeline, tags=tags, run_name=run_name) as run:
        session = Session(job, pipeline, run, resources)
        yield session
    print_locations(session.outputs, job.tracking.uri, run.run_id, job_page(), run.experiment_id)
