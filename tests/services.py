"""Real services on loopback for tests: free ports, waiting for an answer, an MLflow server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sparring.runtime.net import free_port, wait_for

BIN = Path(sys.executable).parent
__all__ = ["free_port", "mlflow_server", "wait_for"]


@contextmanager
def mlflow_server(root: Path) -> Iterator[str]:
    """An ``mlflow server`` on a free 127.0.0.1 port over a sqlite store in ``root``; yields its
    URL and ends it (by its process group) afterwards."""
    root.mkdir(parents=True, exist_ok=True)
    port = free_port()
    proc = subprocess.Popen(
        [
            str(BIN / "mlflow"),
            "server",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--backend-store-uri",
            f"sqlite:///{root / 'server.db'}",
            "--artifacts-destination",
            str(root / "artifacts"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_for(f"http://127.0.0.1:{port}/health", 90)
        yield f"http://127.0.0.1:{port}"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
