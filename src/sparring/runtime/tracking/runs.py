"""MLflow records: one run per pipeline invocation, created and written by the driver.

Params are the flattened Hydra config; metrics go through ``log_batch`` (single ``log_metric``
calls are ~25x slower). Every run follows MLflow's conventions so its UI reads well: the standard
source tags (``mlflow.source.name`` = the pipeline script, ``.type``, ``.git.commit``,
``mlflow.user``), a name made of the pipeline, the config hash and the command-line overrides,
the resolved config as the artifact ``config.yaml``, and the datasets it read or wrote as MLflow
inputs (name, path, digest). The embedded default store is ``sqlite:///mlflow.db`` in the
working directory with artifacts under ``mlartifacts/``.
"""

from __future__ import annotations

import fcntl
import functools
import getpass
import json
import os
import socket
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")

import mlflow
from mlflow.entities import Dataset, DatasetInput, InputTag, Metric, Param, RunTag
from mlflow.tracking import MlflowClient
from omegaconf import OmegaConf

from sparring.runtime.config import config_hash, flatten, to_container
from sparring.runtime.processes import process_start
from sparring.runtime.progress import StopRun
from sparring.runtime.provenance import (
    git_commit,
    git_dirty,
    in_ray_job,
    ray_job_id,
    submission_tags,
)
from sparring.runtime.ray.health import when_stuck
from sparring.runtime.redact import redact_value
from sparring.runtime.signals import deferred, mark, termination
from sparring.runtime.storage.location import Location, locate
from sparring.runtime.tracking.outbox import Outbox
from sparring.runtime.tracking.params import is_infrastructure, short_names, short_value
from sparring.runtime.tracking.settings import TrackingConfig
from sparring.runtime.tracking.sqlite_store import (
    create_whole,
    refuse_half_made,
    refused_if_half_migrated,
)
from sparring.runtime.tracking.store_template import make_store

_BATCH = 200  # MLflow accepts up to 1000 metrics / 100 params per batch
_PARAM_BATCH = 100
_MAX_PARAM_LEN = 6000


_OPENED: set[str] = set()
EXPERIMENT_KIND_TAG = "mlflow.experimentKind"
DRIVER_TAG = "sparring.driver"  # host:pid:start of the process that created the run
ENDED_TAG = "sparring.ended_by"
STOPPED_TAG = "sparring.stopped_by"  # a run a scheduler stopped early (e.g. "asha at step 5")


def driver_id(pid: int | None = None) -> str:
    """This process as ``host:pid:start`` (the start tells a reused pid apart)."""
    pid = os.getpid() if pid is None else pid
    return f"{socket.gethostname()}:{pid}:{process_start(pid) or ''}"


def driver_gone(driver: str) -> bool:
    """Whether the driver named by ``driver_id`` has certainly ended (False on another host)."""
    host, _, rest = driver.partition(":")
    pid_text, _, start = rest.partition(":")
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    return process_start(int(pid_text)) != start or not start


def close_orphans(client: MlflowClient, experiment_id: str, pipeline: str, by: str) -> list[str]:
    """Mark KILLED the RUNNING runs of ``pipeline`` whose driver process is gone (killed -9,
    a crashed machine) and tag how that was found; returns their ids."""
    closed = []
    for run in client.search_runs(
        [experiment_id],
        filter_string=f"attributes.status = 'RUNNING' and tags.pipeline = '{pipeline}'",
    ):
        driver = run.data.tags.get(DRIVER_TAG, "")
        if driver and driver_gone(driver):
            note = f"found RUNNING by run {by} with its driver {driver} gone"
            client.set_tag(run.info.run_id, ENDED_TAG, note)
            client.set_terminated(run.info.run_id, status="KILLED")
            closed.append(run.info.run_id)
    return closed


def open_store(uri: str) -> MlflowClient:
    """A client of the MLflow store at ``uri``, creating and migrating a new SQLite store once.

    Several drivers started together on a new ``sqlite:///`` path would each run MLflow's schema
    migration and one could die in it (alembic ``CommandError``); the first touch of a store is
    therefore made under an exclusive lock on ``<db>.lock``, and the others find it ready. A new
    store is made whole under a temporary name (``sqlite_store.create_whole``): a full disk
    leaves no store behind; a half-made one from before is refused in one line."""
    if uri.startswith("sqlite:///") and uri not in _OPENED:
        db = Path(uri[len("sqlite:///") :])
        with open(db.with_name(db.name + ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                if not db.exists() or db.stat().st_size == 0:
                    create_whole(db, _create)
                else:
                    refuse_half_made(uri, db)
                    # the store's first use here brings an older schema up to date
                    with refused_if_half_migrated(uri, db):
                        MlflowClient(tracking_uri=uri).search_experiments(max_results=1)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
        _OPENED.add(uri)
    return MlflowClient(tracking_uri=uri)


def bound_http_requests(tracking: TrackingConfig) -> None:
    """Bound each request of MLflow's REST client in this process (the driver: the tasks it
    starts log nothing) by ``tracking.http_retries`` and ``tracking.http_timeout_s``: MLflow's
    own default (7 retries, backoff factor 2, 120 s timeouts) holds a driver about 4 minutes
    per write to a server that went away. What could not be sent waits in the run's
    ``Outbox``. The config's values win over the environment's ``MLFLOW_HTTP_REQUEST_*``."""
    os.environ["MLFLOW_HTTP_REQUEST_MAX_RETRIES"] = str(tracking.http_retries)
    os.environ["MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR"] = "1"
    os.environ["MLFLOW_HTTP_REQUEST_TIMEOUT"] = str(tracking.http_timeout_s)


def _create(uri: str) -> None:
    """Create the tables of a new SQLite store at ``uri``: a copy of this MLflow's migrated
    empty store when one is kept (``store_template``), else migrated from nothing."""
    from mlflow.version import VERSION

    make_store(Path(uri[len("sqlite:///") :]), _first_use, VERSION)


def _first_use(uri: str) -> None:
    """MLflow's first use of the store at ``uri`` (it migrates a new one, checks the schema
    and adds the Default experiment), then close its connections: the file is renamed next."""
    from mlflow.store.tracking.sqlalchemy_store import SqlAlchemyStore

    try:
        MlflowClient(tracking_uri=uri).search_experiments(max_results=1)
    finally:  # (a failed creation too: its engine holds the temporary file open)
        engine = SqlAlchemyStore._engine_map.pop(uri, None)
        if engine is not None:
            engine.dispose()


def _artifact_location(root: str | None) -> str | None:
    if not root:
        return None
    if "://" in str(root):
        return str(root)
    return Path(root).resolve().as_uri()


def _whole(write: Callable[..., None]) -> Callable[..., None]:
    """A store write that SIGTERM/SIGHUP wait for (``signals.deferred``)."""

    @functools.wraps(write)
    def wrapped(*args: Any, **kwargs: Any) -> None:
        with deferred():
            write(*args, **kwargs)

    return wrapped


class RunLogger:
    """Writes to one MLflow run through batched calls; a terminating signal waits for the
    write in progress to finish (``signals.deferred``). A server that stops answering does not
    stop the work: its writes are kept in order and sent when it answers (``outbox``)."""

    def __init__(
        self, client: MlflowClient, run_id: str, experiment_id: str, outbox: Outbox | None = None
    ) -> None:
        self.client = client
        self.run_id = run_id
        self.experiment_id = experiment_id
        self.outbox = outbox or Outbox(client.tracking_uri)

    def _batches(self, items: list[Any], size: int, kind: str) -> None:
        """``items`` (params or metrics, as ``kind`` says) in batches of ``size``, each one
        write of the outbox."""
        for i in range(0, len(items), size):
            batch: dict[str, Any] = {kind: items[i : i + size]}
            self.outbox.send(functools.partial(self.client.log_batch, self.run_id, **batch))

    @_whole
    def log_params(self, params: Mapping[str, Any]) -> None:
        items = [Param(k, str(v)[:_MAX_PARAM_LEN]) for k, v in params.items()]
        self._batches(items, _PARAM_BATCH, "params")

    @_whole
    def log_metrics(self, metrics: Mapping[str, float], step: int = 0) -> None:
        now = int(time.time() * 1000)
        items = [Metric(k, float(v), now, step) for k, v in metrics.items()]
        self._batches(items, _BATCH, "metrics")

    @_whole
    def log_metric_series(self, name: str, values: list[float], start_step: int = 0) -> None:
        """One metric over many steps (e.g. a fitness curve) in batched calls."""
        now = int(time.time() * 1000)
        items = [Metric(name, float(v), now, start_step + i) for i, v in enumerate(values)]
        self._batches(items, _BATCH, "metrics")

    @_whole
    def set_tags(self, tags: Mapping[str, Any]) -> None:
        items = [RunTag(k, str(v)) for k, v in tags.items()]
        self.outbox.send(lambda: self.client.log_batch(self.run_id, tags=items))

    @_whole
    def log_artifact(
        self, path: str | os.PathLike[str] | Location, artifact_path: str | None = None
    ) -> None:
        """Copy a file (local, or on an object store) into the run's artifacts. Its bytes are
        read now: a write kept for a server that does not answer is sent as the file was
        (a plot in a temporary directory may be gone by then)."""
        where = locate(path)
        data = where.read_bytes()

        def upload() -> None:
            with tempfile.TemporaryDirectory() as tmp:
                copy = Path(tmp) / where.name
                copy.write_bytes(data)
                self.client.log_artifact(self.run_id, str(copy), artifact_path)

        self.outbox.send(upload)

    @_whole
    def log_text(self, text: str, artifact_file: str) -> None:
        self.outbox.send(lambda: self.client.log_text(self.run_id, text, artifact_file))

    @_whole
    def log_dataset(
        self, name: str, source: str | os.PathLike[str], digest: str, context: str, **profile: Any
    ) -> None:
        """Record a dataset this run read (``context`` training / evaluation) or wrote
        (output) as an MLflow input: the runs table's Dataset column shows it."""
        where = str(source)
        if "://" not in where:
            where = Path(where).resolve().as_uri()
        dataset = Dataset(
            name=name,
            digest=digest[:36],
            source_type="local" if where.startswith("file:") else where.split(":", 1)[0],
            source=json.dumps({"uri": where}),
            profile=json.dumps(profile, default=str) if profile else None,
        )
        tags = [InputTag(key="mlflow.data.context", value=context)]
        inputs = [DatasetInput(dataset, tags)]
        self.outbox.send(lambda: _log_inputs(self.client, self.run_id, inputs))

    @_whole
    def set_tag(self, key: str, value: Any) -> None:
        self.set_tags({key: value})

    def end(self, status: str) -> None:
        """Mark the run ended with ``status``, after every record kept for the server;
        ``TrackingLost`` (one line) when the server still does not answer."""
        self.outbox.send(lambda: self.client.set_terminated(self.run_id, status=status))
        self.outbox.close()

    def end_quietly(self, status: str) -> None:
        """``end``, on the way out of a run that failed or was stopped: a server that does
        not answer then adds nothing to the error already on its way."""
        with suppress(Exception):  # the error on its way out is the one to report
            self.end(status)

    @property
    def url_hint(self) -> str:
        return f"experiment {self.experiment_id}, run {self.run_id}"


def _log_inputs(client: MlflowClient, run_id: str, inputs: list[DatasetInput]) -> None:
    """``client.log_inputs``, safe against runs of one experiment recording the same dataset
    at once (a search's trials all read one deals file). MLflow looks the dataset up, then
    inserts it when missing: a run that inserted it in between makes the insert break the
    store's unique (experiment, name, digest) key. Tried again, the lookup finds that row and
    only this run's link to it is written."""
    try:
        client.log_inputs(run_id, datasets=inputs)
    except Exception as exc:
        if not _lost_dataset_race(exc):
            raise
        client.log_inputs(run_id, datasets=inputs)


def _lost_dataset_race(exc: BaseException) -> bool:
    """True for the unique-key error a concurrent insert of the same dataset raises, as
    sqlite, PostgreSQL and MySQL word it (directly, or relayed by a tracking server)."""
    text = str(exc)
    return "datasets" in text and any(
        word in text for word in ("UNIQUE constraint failed", "duplicate key", "Duplicate entry")
    )


def experiment_id(client: MlflowClient, name: str, artifact_root: str | None) -> str:
    """The id of experiment ``name``, created (its artifacts under ``artifact_root``, a path
    or URI; None: MLflow's default) if new."""
    found = client.get_experiment_by_name(name)
    if found is not None:
        return found.experiment_id
    try:
        return client.create_experiment(
            name,
            artifact_location=_artifact_location(artifact_root),
            # a classic ML experiment: the UI opens on the runs table, not the GenAI overview
            tags={EXPERIMENT_KIND_TAG: "custom_model_development"},
        )
    except mlflow.exceptions.MlflowException:
        # Another driver created it between our look-up and create.
        found = client.get_experiment_by_name(name)
        if found is None:
            raise
        return found.experiment_id


def source_tags(pipeline: str, commit: str) -> dict[str, str]:
    """MLflow's standard tags (the runs table's Source and User columns read them) and, in a
    Ray job, ``ray_job_id`` (its submission id)."""
    tags = {
        "mlflow.source.name": f"pipelines/{pipeline}.py",
        # a Ray job's driver runs inside the job's working directory, not a user's shell
        "mlflow.source.type": "JOB" if in_ray_job() else "LOCAL",
        "mlflow.user": _user(),
    }
    job = ray_job_id()
    if job:  # the submission id: `ray job logs <id>`, the dashboard's page of the job
        tags["ray_job_id"] = job
    if commit != "unknown":
        tags["mlflow.source.git.commit"] = commit
    return tags


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry for this uid (some containers)
        return str(os.getuid())


_MAX_NAME = 120


def command_line_overrides() -> list[str]:
    """The Hydra overrides of the running job (``ga.population=64 seed=2``), [] outside Hydra."""
    from hydra.core.hydra_config import HydraConfig

    if not HydraConfig.initialized():
        return []
    return [str(o) for o in HydraConfig.get().overrides.task]


def named_overrides(overrides: list[str], keys: Iterable[str] = ()) -> list[str]:
    """The overrides that change what is computed, as a run name shows them: infrastructure and
    locations left out (``ray.*``, ``tracking.*``, ``storage.*``, ``hydra.*``, a path or URI:
    ``runtime.tracking.params.is_infrastructure``), values shortened (floats to 4 significant
    digits,
    long text cut) and keys to their shortest suffix no other key of the config (``keys``)
    shares: ``ga.p_mutation=0.3496857`` -> ``p_mutation=0.3497``."""
    parsed = []
    for override in overrides:
        key, sep, value = override.partition("=")
        if not is_infrastructure(key, value if sep else None):
            parsed.append((key.lstrip("+"), sep, value))
    names = short_names([k.lstrip("~") for k, _, _ in parsed], among=keys)
    return [
        ("~" if key.startswith("~") else "")
        + names[key.lstrip("~")]
        + (f"={short_value(value)}" if sep else "")
        for key, sep, value in parsed
    ]


def default_run_name(
    pipeline: str, digest: str, overrides: list[str], keys: Iterable[str] = ()
) -> str:
    """``evolve 3f2a1c population=64 seed=2``: the pipeline, the config hash (same hash = same
    computation) and the overrides that change what is computed (``named_overrides``; ``keys``:
    every key of the config, so a short key is never ambiguous), cut at 120 characters with
    ``+N more``."""
    name = f"{pipeline} {digest[:6]}"
    shown = named_overrides(overrides, keys)
    for i, override in enumerate(shown):
        rest = len(shown) - i - 1
        more = f" +{rest} more" if rest else ""
        if len(name) + 1 + len(override) + len(more) > _MAX_NAME:
            return f"{name} +{len(shown) - i} more"
        name += f" {override}"
    return name


@contextmanager
def tracked_run(
    cfg: Any,
    pipeline: str,
    *,
    tags: Mapping[str, Any] | None = None,
    run_name: str | None = None,
) -> Iterator[RunLogger]:
    """Open an MLflow run for one pipeline invocation and close it with its final status.

    ``cfg`` is the pipeline's typed config (or a mapping): its params. ``cfg.tracking`` (a
    ``TrackingConfig``, or a mapping of its fields) gives ``uri``
    (e.g. ``sqlite:///mlflow.db`` or an http server), ``experiment`` (default: the pipeline
    name) and ``artifact_root``. The run gets the flattened config (minus ``tracking``) as
    params, and tags ``pipeline``, ``git_commit``, ``config_hash`` plus ``tags``; a parent run
    id in ``tracking.parent_run_id`` nests it, and inside a sweep (``runtime.sweep``) it is
    nested under the sweep's parent and tagged; ``tracking.run_name`` and ``tracking.tags`` name
    and tag it. Ctrl-C marks the run KILLED, an error FAILED, a ``StopRun`` (a search's scheduler
    stopping a trial early) KILLED with the tag ``sparring.stopped_by``.
    """
    conf = to_container(cfg)
    tracking = TrackingConfig.of(conf.get("tracking"))
    uri = tracking.uri
    mlflow.set_tracking_uri(uri)
    bound_http_requests(tracking)
    client = open_store(uri)
    exp_id = experiment_id(client, tracking.experiment or pipeline, tracking.artifact_root)
    body = {k: v for k, v in conf.items() if k not in ("tracking", "hydra")}
    commit = git_commit()
    digest = config_hash(body)
    all_tags = {
        "pipeline": pipeline,
        "git_commit": commit,
        "git_dirty": git_dirty(),
        "config_hash": digest,
        **source_tags(pipeline, commit),
        **tracking.tags,
        **(tags or {}),
    }
    all_tags.update(submission_tags(digest))
    parent = tracking.parent_run_id or os.environ.get("SPARRING_SWEEP_PARENT_RUN")
    if parent:
        all_tags["mlflow.parentRunId"] = parent
    if os.environ.get("SPARRING_SWEEP_ID"):
        all_tags["sweep_id"] = os.environ["SPARRING_SWEEP_ID"]
    all_tags[DRIVER_TAG] = driver_id()
    name = (
        run_name
        or tracking.run_name
        or default_run_name(pipeline, digest, command_line_overrides(), flatten(body))
    )
    run = client.create_run(exp_id, run_name=name, tags=all_tags)
    logger = RunLogger(client, run.info.run_id, exp_id, Outbox(uri))
    # the params first, right after the run exists: a kill between the two (they are two
    # writes to the store) leaves a run without them, so the gap is kept to one call
    logger.log_params(redact_value(flatten(body)))  # no URL's credentials or query recorded
    for orphan in close_orphans(client, exp_id, pipeline, run.info.run_id):
        print(f"marked run {orphan} KILLED: its driver process is gone")
    from sparring.runtime.ray.parallel import (  # here: reading runs needs no Ray
        code_used,
        nodes_used,
    )

    nodes_used(reset=True)
    logger.log_text(OmegaConf.to_yaml(OmegaConf.create(redact_value(conf))), "config.yaml")
    began = mark()  # (only a stop handled during this run is this run's)
    # a driver held inside Ray when its head ends is ended by the head's watcher: KILLED first
    forget = when_stuck(lambda cause: logger.end_quietly("KILLED"))
    try:
        yield logger
    except StopRun as stop:  # a scheduler ended it early: not a failure
        logger.set_tag(STOPPED_TAG, stop.reason)
        logger.end_quietly("KILLED")
        raise
    except KeyboardInterrupt:
        logger.end_quietly("KILLED")
        raise
    except BaseException as exc:
        ended = termination(exc, began)  # a SIGTERM a library raised as an error of its own
        logger.end_quietly("KILLED" if ended else "FAILED")
        if ended:
            raise ended from exc
        raise
    finally:
        forget()
    nodes = nodes_used()
    if nodes:  # where the run's tasks ran: a multi-node run shows its spread
        logger.log_metrics({"nodes_used": len(nodes)})
        logger.set_tags({"ray_nodes": ",".join(sorted(n[:12] for n in nodes))})
    # where the driver and the task workers imported sparring from (a submitted job: its copy)
    logger.set_tags({"sparring_code": ",".join(sorted(code_used()))[:5000]})
    logger.end("FINISHED")
