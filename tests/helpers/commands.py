"""A pipeline or the ``sparring`` command run as a user runs it: in a subprocess of its own, with
this test session's interpreter (so the project's virtual environment) and its environment.

The session's environment is what ``tests/conftest.py`` sets up (the repository on
``PYTHONPATH``, ``RAY_USAGE_STATS_ENABLED=0``, the session's Ray home, the test S3 credentials):
a child inherits it unless a test gives ``env``, whose variables are then set on top of it. A
test that needs variables removed builds its own environment and calls ``subprocess`` itself
with the argv from ``pipeline_argv`` or ``cli_argv``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]  # the repository: pipelines/, conf/, README.md
BIN = Path(sys.executable).parent  # the environment's console scripts: sparring, ray, mlflow


def pipeline_argv(name: str, *overrides: str) -> list[str]:
    """``python pipelines/<name>.py <overrides...>``, the script by its absolute path."""
    return [sys.executable, str(ROOT / "pipelines" / f"{name}.py"), *overrides]


def cli_argv(*args: str) -> list[str]:
    """``sparring <args...>``, as ``python -m sparring.cli``."""
    return [sys.executable, "-m", "sparring.cli", *args]


def _environment(env: Mapping[str, str] | None) -> dict[str, str] | None:
    """None (inherit this process's environment unchanged), or it with ``env`` set on top."""
    return None if env is None else {**os.environ, **env}


def run_command(
    argv: Sequence[str],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    input: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` (from ``pipeline_argv`` or ``cli_argv``, maybe with interpreter flags) to
    its end: its stdout and stderr captured as text, ``input`` (if any) its stdin. ``timeout``
    in seconds as ``subprocess.run`` takes it (None: no limit; past it, TimeoutExpired). The
    exit status is the caller's to check."""
    return subprocess.run(
        list(argv),
        cwd=cwd,
        env=_environment(env),
        input=input,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def run_pipeline(
    name: str,
    *overrides: str,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """``pipelines/<name>.py <overrides...>`` run to its end in ``cwd`` (where Hydra writes
    ``outputs/``, and relative paths of the config resolve: a test's own directory), as
    ``run_command`` runs it."""
    return run_command(pipeline_argv(name, *overrides), cwd=cwd, env=env, timeout=timeout)


def run_cli(
    *args: str,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    input: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """``sparring <args...>`` run to its end (in ``cwd``, else this process's directory), as
    ``run_command`` runs it."""
    return run_command(cli_argv(*args), cwd=cwd, env=env, timeout=timeout, input=input)


def start_pipeline(
    name: str,
    *overrides: str,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    **popen_kwargs: Any,
) -> subprocess.Popen:
    """``pipelines/<name>.py <overrides...>`` started in ``cwd`` and left running, for a test
    that watches, signals or kills it: ``popen_kwargs`` (stdout, stderr, text, ...) go to
    ``subprocess.Popen`` as given, nothing is captured unless they ask for it, and waiting
    for the process (and ending it) is the caller's."""
    return subprocess.Popen(
        pipeline_argv(name, *overrides), cwd=cwd, env=_environment(env), **popen_kwargs
    )


def wait_while_running(
    proc: subprocess.Popen,
    ready: Callable[[], object],
    what: str,
    timeout_s: float = 300.0,
    every_s: float = 0.2,
) -> None:
    """Poll ``ready()`` every ``every_s`` until it is true, for a test that acts on a running
    process at a chosen moment (a kill, a signal, a server gone). Fails with the process's last
    stderr if it ended first, and with ``what`` (the awaited moment) after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while not ready():
        if proc.poll() is not None:
            err = proc.communicate()[1] or ""
            err = err.decode(errors="replace") if isinstance(err, bytes) else err
            raise AssertionError(f"ended (exit {proc.returncode}) before {what}:\n{err[-3000:]}")
        assert time.monotonic() < deadline, f"no {what} within {timeout_s:g} s"
        time.sleep(every_s)


def workers_started_in(cwd: Path) -> list[int]:
    """The live Ray workers of drivers that ran in ``cwd``: a driver that joins the local head
    hands its workers ``SPARRING_DRIVER_CWD`` (``local_head.driver_runtime_env``), so a test
    can tell its own pipeline's workers from every other process of the shared head."""
    marker = f"SPARRING_DRIVER_CWD={Path(cwd).resolve()}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                variables = Path(f"/proc/{entry}/environ").read_bytes().split(b"\0")
            except OSError:  # gone, or not ours to read
                continue
            if marker in variables:
                found.append(int(entry))
    return found


def wait_for_workers_gone(cwd: Path, timeout_s: float = 60.0) -> float:
    """Wait until no worker of a driver that ran in ``cwd`` is alive (after a driver's kill -9
    its workers run on until the head notices, and may still write); returns the seconds it
    took, and fails naming the pids still alive after ``timeout_s``."""
    start = time.monotonic()
    while alive := workers_started_in(cwd):
        assert time.monotonic() - start < timeout_s, f"workers {alive} of a dead driver still run"
        time.sleep(0.2)
    return time.monotonic() - start


def holding(code: str) -> subprocess.Popen:
    """A Python process running ``code``, returned once it says ``held`` (it holds a lock, a
    file, a transaction: what the test wants held by another process). Kill it when done."""
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder
