"""Where a run's code came from: the git commit, whether the checkout had changes, and what
``sparring submit`` checked before it sent a job (a job's code is a copy without ``.git``)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

# Passed by `sparring submit` to the job's processes.
SUBMITTED_COMMIT = "SPARRING_GIT_COMMIT"
SUBMITTED_DIRTY = "SPARRING_GIT_DIRTY"
SUBMITTED_CONFIG_HASH = "SPARRING_CONFIG_HASH"
SUBMITTED_LOCK = "SPARRING_UV_LOCK_SHA256"
# Ray hands a job's driver its job config (runtime env, metadata with the submission id) here.
RAY_JOB_CONFIG = "RAY_JOB_CONFIG_JSON_ENV_VAR"
RAY_JOB_ID_KEY = "job_submission_id"  # ray.dashboard.modules.job.common.JOB_ID_METADATA_KEY


def _git(args: list[str], cwd: str | os.PathLike[str] | None) -> str | None:
    cwd = cwd if cwd is not None else Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout if out.returncode == 0 else None


def git_commit(cwd: str | os.PathLike[str] | None = None) -> str:
    """The git commit of the checkout the code runs from (or of ``cwd``); in a submitted job,
    the commit the submitter's checkout was at; "unknown" when neither is known (an installed
    wheel, a job submitted without ``sparring submit``)."""
    if cwd is None and os.environ.get(SUBMITTED_COMMIT):
        return os.environ[SUBMITTED_COMMIT]
    out = _git(["rev-parse", "HEAD"], cwd)
    return out.strip() if out else "unknown"


def git_dirty(cwd: str | os.PathLike[str] | None = None) -> str:
    """ "true" when the checkout has changes not in its commit (tracked or new files), "false"
    when clean, "unknown" outside a checkout; a submitted job reports its submitter's. Files
    the checkout git-ignores (data, stores and their lock files, caches) do not count."""
    if cwd is None and os.environ.get(SUBMITTED_DIRTY):
        return os.environ[SUBMITTED_DIRTY]
    out = _git(["status", "--porcelain", "--untracked-files=normal", "--ignored=no"], cwd)
    return "unknown" if out is None else str(bool(out.strip())).lower()


def in_ray_job() -> bool:
    """True in the driver of a Ray job (``ray job submit``, ``sparring submit``) and in the
    processes it starts."""
    return bool(os.environ.get(RAY_JOB_CONFIG))


def ray_job_id() -> str | None:
    """The submission id of the Ray job this process is the driver of; None outside a job (or
    when Ray's job config does not carry it)."""
    try:
        config = json.loads(os.environ.get(RAY_JOB_CONFIG) or "{}")
    except ValueError:
        return None
    metadata = config.get("metadata") if isinstance(config, dict) else None
    found = metadata.get(RAY_JOB_ID_KEY) if isinstance(metadata, dict) else None
    return str(found) if found else None


def lock_digest(path: str | os.PathLike[str]) -> str | None:
    """The SHA-256 of a ``uv.lock`` file, None when there is none."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def environment_lock() -> Path:
    """The ``uv.lock`` the running environment was built from: the project next to its
    ``.venv`` (``uv sync --locked`` on every node of a cluster)."""
    return Path(sys.prefix).resolve().parent / "uv.lock"


def submission_tags(config_hash: str) -> dict[str, str]:
    """Tags for a job sent by ``sparring submit`` ({} otherwise): the config hash it checked
    and whether the cluster's environment was built from the submitted ``uv.lock``. A
    difference is reported in one line: the job still runs."""
    submitted = os.environ.get(SUBMITTED_CONFIG_HASH)
    if not submitted:
        return {}
    tags = {"submitted_config_hash": submitted}
    if submitted != config_hash:
        print(f"warning: the job's config hash {config_hash[:12]} is not the submitted one")
    wanted = os.environ.get(SUBMITTED_LOCK)
    if wanted:
        have = lock_digest(environment_lock())
        tags["uv_lock_matches"] = "unknown" if have is None else str(have == wanted).lower()
        if have is not None and have != wanted:
            print(
                f"warning: this cluster's environment was built from another uv.lock than the "
                f"submitted one ({environment_lock()}); rerun `uv sync --locked` on its nodes"
            )
    return tags
