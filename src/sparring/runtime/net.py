"""Loopback helpers for the services we start ourselves (MLflow UI/server, test servers)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(url: str, seconds: float) -> None:
    """Return once ``url`` answers (any HTTP status counts: e.g. 401 under token auth);
    ``TimeoutError`` after ``seconds``."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"{url} did not answer within {seconds:.0f} s")


def stop_group(proc: subprocess.Popen, grace_s: float = 10.0) -> None:
    """End a server started with ``start_new_session=True`` and its workers: SIGTERM to its
    process group, SIGKILL after ``grace_s`` (uvicorn's graceful shutdown waits for every open
    keep-alive connection, which a client's pool may hold for minutes)."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
