"""Shared fixtures: one real local Ray and one MLflow sqlite store for the whole session."""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
# Ray workers import test helpers by module name (tests.runtime.test_parallel), so they need the
# repository root on their path; embedded Ray workers inherit the driver's environment.
_ROOT = str(Path(__file__).resolve().parent.parent)
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (_ROOT, os.environ.get("PYTHONPATH")) if p)

# One local Ray head for the whole session (runtime.ray.local_head): this process and every
# pipeline a
# test starts in a subprocess join it. Its own directory: never a developer's running head.
import tempfile  # noqa: E402

_OWN_RAY_HOME = "SPARRING_RAY_HOME" not in os.environ
if _OWN_RAY_HOME:
    os.environ["SPARRING_RAY_HOME"] = tempfile.mkdtemp(prefix="sparring-ray-tests-")

# Object-store tests talk to a local S3 server with test credentials. Ray workers (and the nodes a
# test cluster starts) inherit the environment, so it is set before any of them exists.
from tests.helpers.services import S3_CREDENTIALS  # noqa: E402

for _key, _value in S3_CREDENTIALS.items():
    os.environ.setdefault(_key, _value)

# Outside programs run in bubblewrap's sandbox (runtime.programs.jail). On a machine where it
# cannot run
# (not installed, no user namespaces, not root to install it) the suite still passes: programs
# then run unsandboxed, said once here, and the sandbox's own tests skip with the reason.
from sparring.runtime.programs import jail  # noqa: E402

if jail.problem() is not None and jail.MODE_VARIABLE not in os.environ:
    os.environ[jail.MODE_VARIABLE] = "none"
    print(f"\nsandbox: {jail.problem()}: outside programs run unsandboxed in these tests")

import signal  # noqa: E402

# Ctrl-C as a terminal sends it: tests send SIGINT to the pipelines they start. A suite started
# in the background of a shell without job control (`(make test &)`, cron) inherits SIGINT
# ignored, and so would every child (Python installs no handler for an ignored SIGINT): restore
# it, so those tests test the code and not how the suite was launched.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

settings.register_profile("ci", deadline=None, max_examples=60)
settings.load_profile("ci")


# The folders whose tests run whole pipelines, Ray heads and servers in subprocesses (most of the
# suite's time), in the order they run first. With two test workers (`make test`), each takes a
# test file at a time: the long files first and the many short ones last, so both workers stay
# busy to the end (longest first), instead of one finishing its share of unit tests while the
# other is still in a 90-second file. (xdist's loadfile would hand out the files with the most
# tests first, whatever this order: the Makefile passes --no-loadscope-reorder.)
LONG_FIRST = ("tests/ops", "tests/tuning", "tests/runtime", "tests/arena", "tests/config")


def pytest_collection_modifyitems(config, items):
    """Under test workers, run the files of ``LONG_FIRST`` first (in that order), the rest as
    collected; one process keeps the collected order."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return

    def rank(item) -> int:
        path = Path(str(item.fspath)).relative_to(_ROOT).as_posix()
        return next(
            (i for i, top in enumerate(LONG_FIRST) if path.startswith(top + "/")), len(LONG_FIRST)
        )

    items.sort(key=rank)  # stable: the order within a folder is the collected one


@pytest.fixture(scope="session")
def ray_session():
    """This process joined to the session's local Ray head (every core: 2 on CI)."""
    from sparring.runtime.ray.session import init_ray, shutdown_ray

    resources = init_ray({"log_to_driver": False})
    yield resources
    shutdown_ray()


# What the suite may leave in the repository: pytest's, hypothesis's and Python's own caches.
# Anything else a test wrote there (an MLflow client's default ./mlruns, a pipeline's outputs/)
# belongs in its tmp_path, and a file appearing under the repository mid-session also changes what
# a submitted job ships (Ray hashes a working_dir twice).
_CACHES = (".pytest_cache/", ".hypothesis/", "__pycache__/", ".ruff_cache/", ".mypy_cache/")


def _untracked() -> set[str] | None:
    """The repository's untracked and ignored paths (as git lists them), None without git."""
    import subprocess

    try:
        listed = subprocess.run(
            ["git", "status", "--porcelain", "--ignored", "--untracked-files=normal"],
            cwd=_ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    paths = {line[3:] for line in listed.splitlines() if line[:2] in ("??", "!!")}
    return {p for p in paths if not any(p.endswith(c) or f"/{c}" in p for c in _CACHES)}


def pytest_sessionstart(session):
    if not os.environ.get("PYTEST_XDIST_WORKER"):  # the controller (or the only process)
        session.config._untracked_at_start = _untracked()


def pytest_sessionfinish(session, exitstatus):
    """Fail a session whose tests left files in the repository; end the session's local Ray head
    (by its PID), whichever test started it."""
    before = getattr(session.config, "_untracked_at_start", None)
    after = _untracked() if before is not None else None
    if after is not None and after - before:
        left = ", ".join(sorted(after - before))
        report = session.config.pluginmanager.get_plugin("terminalreporter")
        report.ensure_newline()
        report.write_line(
            f"error: the tests left files in the repository (tests write under tmp_path): {left}",
            red=True,
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED

    from sparring.runtime.ray import local_head

    if _OWN_RAY_HOME:
        local_head.stop()
        import shutil

        shutil.rmtree(os.environ["SPARRING_RAY_HOME"], ignore_errors=True)


@pytest.fixture(scope="session")
def mlflow_store(tmp_path_factory):
    """A tracking section pointing at a session-wide sqlite MLflow store."""
    root = tmp_path_factory.mktemp("mlflow")
    return {
        "uri": f"sqlite:///{root / 'mlflow.db'}",
        "artifact_root": str(root / "artifacts"),
        "experiment": None,
        "parent_run_id": None,
    }


@pytest.fixture
def pipeline_config(mlflow_store, tmp_path):
    """``pipeline_config("equity", "trials=10")`` -> the typed config the pipeline gets, with
    tracking in the session's MLflow store; a bad value raises ``ConfigError`` here."""
    from sparring.config import to_typed
    from tests.helpers.configs import compose_config

    def make(name: str, *overrides: str):
        cfg = compose_config(name, *overrides)
        cfg.tracking.uri = mlflow_store["uri"]
        cfg.tracking.artifact_root = mlflow_store["artifact_root"]
        return to_typed(cfg)

    return make


@pytest.fixture(scope="session")
def mlflow_server(tmp_path_factory):
    """A real MLflow tracking server on 127.0.0.1 (its own sqlite store), one for the session
    (a start costs ~8 CPU-seconds): its tests name their own experiments, models and claims.
    Yields its URL. (Tests that stop and restart a server start their own.)"""
    from tests.helpers.services import mlflow_server as serve

    with serve(tmp_path_factory.mktemp("mlflow-server")) as url:
        yield url


@pytest.fixture(scope="session")
def s3(tmp_path_factory):
    """A real S3-protocol server on 127.0.0.1 for the whole session (``services.S3Server``)."""
    from tests.helpers.services import s3_server

    with s3_server(tmp_path_factory.mktemp("s3")) as server:
        yield server


@pytest.fixture
def s3_bucket(s3, request):
    """A fresh bucket on the session's S3 server: ``s3://<name>``."""
    import re
    import uuid

    name = re.sub(r"[^a-z0-9-]", "-", request.node.name.lower())[:40].strip("-")
    return s3.bucket(f"{name}-{uuid.uuid4().hex[:8]}")
