"""``sparring submit``: a pipeline run as a Ray job that carries exactly the submitted code.

What is sent:

- the checkout's working tree as the job's working directory (without ``.git``, ``.venv``,
  data and MLflow stores), and ``src/sparring`` as a ``py_modules`` package, which Ray puts
  ahead of any installed ``sparring`` on the path of the job's driver and of every worker: they
  import the submitted code, not a checkout that happens to be on the node;
- the entrypoint ``python pipelines/<pipeline>.py <overrides>``, run with the cluster's Python,
  whose environment comes from the same ``uv.lock`` (the cluster's setup runs
  ``uv sync --locked``; a job on an environment built from another lock says so in one line);
- the git commit, the dirty flag, the ``uv.lock`` digest and the config hash, recorded by the
  job's run as tags.

Before anything is sent the config is composed and checked as the job will compose it
(``ray=cluster`` and ``tracking=server`` unless the overrides choose), and a relative output
path is refused: the job runs in a temporary copy of the code on the head, so anything written
under a relative path is lost with it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shlex
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sparring.runtime.checkout import ROOT
from sparring.runtime.config import config_hash, to_container
from sparring.runtime.errors import ConfigError, UsageError
from sparring.runtime.provenance import (
    SUBMITTED_COMMIT,
    SUBMITTED_CONFIG_HASH,
    SUBMITTED_DIRTY,
    SUBMITTED_LOCK,
    git_commit,
    git_dirty,
    lock_digest,
)
from sparring.runtime.storage.location import scheme_of

DEFAULT_ADDRESS = "http://127.0.0.1:8265"
# Left out of what is shipped: version control, environments, data, stores, caches. Ray applies
# this one list to the working_dir and to each py_modules package, matching (gitignore syntax)
# paths relative to that package's own root, so every pattern is anchored with "/": "/data" is
# the checkout's data/, never the package data in src/sparring/poker/data/ (an unanchored
# "data" dropped it from the py_modules package and every job that makes deals failed).
# Caches are the one exception: they are left out wherever they are.
EXCLUDES = [
    "/.git",
    "/.venv",
    "/data",
    "/outputs",
    "/multirun",
    "/mlruns",
    "/mlartifacts",
    "/mlartifacts-server",
    "/*.db",
    "/*.db.lock",
    "/.pytest_cache",
    "/.ruff_cache",
    "/.mypy_cache",
    "/.hypothesis",
    "/conf/best",
    "__pycache__/",
    "*.pyc",
]
# Config keys (their last part) that say where a run writes.
OUTPUT_KEYS = frozenset(
    {
        "output",
        "output_root",
        "output_dir",
        "root",
        "checkpoint_root",
        "artifact_root",
        "storage",
        "cache_dir",
        "best_dir",
    }
)
# Output keys whose null means a directory inside the checkout (tune's best config file).
NULL_IN_CHECKOUT = {"best_dir": "conf/best"}
LOST = (
    "a submitted job runs in a temporary copy of the code on the cluster and what it writes "
    "there is lost; use s3://..., gs://... or an absolute path every node shares (tune's "
    "storage and best_dir: an absolute path)"
)
# The cluster's Python must hold the locked environment (Ray gives jobs the PATH of `ray start`).
ENVIRONMENT_CHECK = (
    "python -c 'import hydra, ray, sparring' 2>/dev/null || "
    "{ echo \"error: the cluster's python ($(command -v python)) lacks Sparring's locked "
    "environment: start Ray with the project's .venv/bin first on PATH (docs/guides/"
    'cluster.md)" >&2; exit 2; }'
)


def checkout() -> Path:
    """The Sparring checkout this code runs from (the tree that is shipped)."""
    root = ROOT
    if not all((root / part).exists() for part in ("pipelines", "conf", "pyproject.toml")):
        raise UsageError(
            f"sparring submit ships a checkout, and this sparring is installed at {root}; "
            "run it from a clone of the repository (make setup)"
        )
    return root


def pipelines(root: Path) -> list[str]:
    """The pipelines a job can run: ``pipelines/<name>.py``."""
    from sparring.config.renamed import RENAMED_PIPELINES

    scripts = (root / "pipelines").glob("*.py")
    return sorted(p.stem for p in scripts if p.stem not in RENAMED_PIPELINES)


@dataclass(frozen=True)
class Submission:
    """A checked job, ready to send."""

    pipeline: str
    overrides: list[str]  # as the job gets them (with the cluster defaults added)
    entrypoint: str
    runtime_env: dict[str, Any]
    config_hash: str
    commit: str
    dirty: str


def with_cluster_defaults(
    overrides: Sequence[str], groups: Sequence[str] = ("ray", "tracking")
) -> list[str]:
    """``ray=cluster`` and ``tracking=server`` first, unless the overrides choose otherwise;
    only for the ``groups`` the pipeline's config has (``compare`` has no ``ray``)."""
    chosen = list(overrides)
    added = []
    if "ray" in groups and not any(o.lstrip("+~").startswith(("ray=", "ray.")) for o in chosen):
        added.append("ray=cluster")
    if "tracking" in groups and not any(
        o.lstrip("+~").startswith(("tracking=", "tracking.uri=")) for o in chosen
    ):
        added.append("tracking=server")
    return added + chosen


def _leaves(tree: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for key, value in tree.items():
        if isinstance(value, Mapping):
            yield from _leaves(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def output_problems(conf: Mapping[str, Any], whose: str = "", how: str = "") -> list[str]:
    """Every relative local output path (or relative sqlite tracking store) of ``conf``, as
    ``key=value is ...`` phrases; ``whose`` names the config (a tune trial's) and ``how`` says
    how to set the key there."""
    problems = []
    for key, value in _leaves(conf):
        name = key.rsplit(".", 1)[-1]
        set_it = how.format(key=key)
        if value is None and name in NULL_IN_CHECKOUT:
            problems.append(f"{whose}{key}=null writes to {NULL_IN_CHECKOUT[name]}{set_it}")
        elif not isinstance(value, str):
            continue
        elif name in OUTPUT_KEYS and scheme_of(value) == "" and not Path(value).is_absolute():
            problems.append(f"{whose}{key}={value} is a relative path{set_it}")
        elif key == "tracking.uri" and value.startswith("sqlite:///") and value[10] != "/":
            problems.append(
                f"tracking.uri={value} is a relative sqlite store (or log to the head's "
                "MLflow server: tracking=server)"
            )
    return problems


def refuse_lost(problems: Sequence[str]) -> None:
    """One line naming every path a job would lose, and what to use instead."""
    if problems:
        raise ConfigError.text(f"{'; '.join(problems)}: {LOST}")


def prepare(pipeline: str, overrides: Sequence[str], root: Path | None = None) -> Submission:
    """Compose and check the job's config and describe the job (nothing is sent)."""
    from sparring.config.best_files import check_best_files
    from sparring.config.renamed import refuse_renamed, refuse_renamed_pipeline
    from sparring.tuning.target import check, compose, typed

    root = root or checkout()
    refuse_renamed_pipeline(pipeline)
    known = pipelines(root)
    if pipeline not in known:
        raise ConfigError("pipeline", pipeline, f"one of {', '.join(known)}")
    refuse_renamed(pipeline, overrides)
    check_best_files(root / "conf", overrides)  # what the job would compose: whole, or refused
    composed = compose(str(root / "conf"), pipeline, overrides)
    groups = [group for group in ("ray", "tracking") if group in composed]
    args = with_cluster_defaults(overrides, groups)
    job = typed(str(root / "conf"), pipeline, args)
    conf = to_container(job)
    problems = output_problems(conf)
    if pipeline == "tune":  # its trials write too: the tuned pipeline's config as they compose it
        problems += output_problems(
            {  # a trial logs where the search does (tune's tracking, checked above)
                k: v
                for k, v in to_container(check(str(root / "conf"), job.hparams_search)).items()
                if k != "tracking"
            },
            whose="a trial's ",
            how=" (for every trial: '++hparams_search.fixed={{{key}: /shared/path}}')",
        )
    refuse_lost(problems)  # every path at once, not one per attempt
    # the hash the job's run will compute (tracked_run: the config without tracking and hydra)
    digest = config_hash({k: v for k, v in conf.items() if k not in ("tracking", "hydra")})
    commit, dirty = git_commit(root), git_dirty(root)
    env = {
        SUBMITTED_COMMIT: commit,
        SUBMITTED_DIRTY: dirty,
        SUBMITTED_CONFIG_HASH: digest,
        "RAY_USAGE_STATS_ENABLED": "0",
    }
    lock = lock_digest(root / "uv.lock")
    if lock:
        env[SUBMITTED_LOCK] = lock
    command = " ".join(shlex.quote(part) for part in ["python", f"pipelines/{pipeline}.py", *args])
    return Submission(
        pipeline=pipeline,
        overrides=args,
        entrypoint=f"{ENVIRONMENT_CHECK}; exec {command}",
        runtime_env={
            "working_dir": str(root),
            "py_modules": [str(root / "src" / "sparring")],
            "excludes": EXCLUDES,
            "env_vars": env,
        },
        config_hash=digest,
        commit=commit,
        dirty=dirty,
    )


@dataclass(frozen=True)
class Shipped:
    """What Ray uploads of one tree of a job: the working_dir or one py_modules package."""

    kind: str  # "working_dir" or "py_modules"
    root: Path
    files: dict[Path, int]  # absolute path -> bytes

    @property
    def size(self) -> int:
        return sum(self.files.values())


def shipped(runtime_env: Mapping[str, Any]) -> list[Shipped]:
    """The files Ray will upload for ``runtime_env`` (its local working_dir and py_modules
    directories), chosen by Ray's own packaging walk: the ``excludes`` anchored to each tree,
    Ray's default excludes of a working_dir, and the trees' ``.gitignore``/``.rayignore``."""
    from ray._private import ray_constants
    from ray._private.runtime_env.packaging import _dir_travel, _get_excludes

    # as the job client decides it (ray.dashboard.modules.dashboard_sdk)
    gitignore = os.environ.get(ray_constants.RAY_RUNTIME_ENV_IGNORE_GITIGNORE, "0") != "1"
    excludes = list(runtime_env.get("excludes") or [])
    trees = [("py_modules", Path(m), excludes) for m in runtime_env.get("py_modules") or []]
    if runtime_env.get("working_dir"):
        defaults = ray_constants.get_runtime_env_default_excludes()
        trees.insert(0, ("working_dir", Path(runtime_env["working_dir"]), defaults + excludes))
    found = []
    for kind, root, patterns in trees:
        files: dict[Path, int] = {}

        def keep(path: Path, files: dict[Path, int] = files) -> None:
            if path.is_file():
                files[path] = path.stat().st_size

        _dir_travel(
            root, [_get_excludes(root, patterns)], keep, include_gitignore=gitignore, logger=_QUIET
        )
        found.append(Shipped(kind, root, files))
    return found


_QUIET = logging.getLogger("sparring.submit.shipped")  # not Ray's INFO line per ignore file
_QUIET.setLevel(logging.WARNING)


def _size(size: int) -> str:
    """``512 B``, ``20.3 KiB``, ``1.74 MiB``."""
    if size < 1024:
        return f"{size} B"
    if size < 2**20:
        return f"{size / 1024:.1f} KiB"
    return f"{size / 2**20:.2f} MiB"


def describe_shipped(trees: Sequence[Shipped], largest: int = 5) -> list[str]:
    """Lines for ``--dry-run``: files and bytes of each tree, then its ``largest`` files."""
    lines = []
    for tree in trees:
        lines.append(f"{tree.kind} {tree.root}: {len(tree.files)} files, {_size(tree.size)}")
        for path, size in sorted(tree.files.items(), key=lambda kv: -kv[1])[:largest]:
            lines.append(f"  {_size(size):>12}  {path.relative_to(tree.root)}")
    return lines


class AlreadySubmitted(Exception):
    """A job with this submission id exists already: its ``status`` (``RUNNING``, ...)."""

    def __init__(self, submission_id: str, status: str) -> None:
        self.submission_id, self.status = submission_id, status
        super().__init__(f"job {submission_id} was already submitted (status {status})")


def send(job: Submission, address: str, submission_id: str | None = None) -> str:
    """Submit ``job`` to the Ray cluster's job server at ``address``; returns the job id.
    A ``submission_id`` the server knows already raises ``AlreadySubmitted`` with that job's
    status, and nothing is submitted (a submission id makes a submission idempotent)."""
    from ray.job_submission import JobSubmissionClient

    try:
        client = JobSubmissionClient(address)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise UsageError(f"no Ray job server at {address} ({_first_line(exc)})") from None
    if submission_id is not None and (status := _status(client, submission_id)) is not None:
        raise AlreadySubmitted(submission_id, status)
    try:
        return client.submit_job(
            entrypoint=job.entrypoint,
            runtime_env=job.runtime_env,
            submission_id=submission_id,
            metadata={
                "pipeline": job.pipeline,
                "git_commit": job.commit,
                "git_dirty": job.dirty,
                "config_hash": job.config_hash,
            },
        )
    except RuntimeError as exc:  # submitted by someone else since we looked
        if submission_id is not None and "already exists" in str(exc):
            raise AlreadySubmitted(submission_id, _status(client, submission_id) or "?") from None
        raise


def _status(client: Any, submission_id: str) -> str | None:
    """The status of job ``submission_id`` on the server, None when it has no such job."""
    try:
        return str(client.get_job_status(submission_id).value)
    except RuntimeError:  # Ray: "Job ... does not exist"
        return None


def follow(address: str, job_id: str) -> str:
    """Print the job's output as it comes; returns its final status (e.g. ``SUCCEEDED``)."""
    from ray.job_submission import JobSubmissionClient

    client = JobSubmissionClient(address)

    async def tail() -> None:
        async for lines in client.tail_job_logs(job_id):
            print(lines, end="", flush=True)

    asyncio.run(tail())
    return str(client.get_job_status(job_id).value)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__
