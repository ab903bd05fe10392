"""Real services on loopback for tests: free ports, waiting for an answer, an MLflow server."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sparring.runtime.net import free_port, stop_group, wait_for

BIN = Path(sys.executable).parent
__all__ = ["free_port", "mlflow_server", "wait_for"]


@contextmanager
def mlflow_server(root: Path) -> Iterator[str]:
    """An ``mlflow server`` on a free 127.0.0.1 port over a sqlite store in ``root``; yields its
    URL and ends it (by its process group) afterwards."""
    root.mkdir(parents=True, exist_ok=True)
    port = free_port()
    log = open(root / "server.log", "w")  # noqa: SIM115 (closed in the finally below)
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
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        try:  # a loaded 2-core machine takes a while to import the server
            wait_for(f"http://127.0.0.1:{port}/health", 240)
        except TimeoutError as exc:
            log.flush()
            tail = (root / "server.log").read_text()[-1500:]
            raise TimeoutError(f"{exc}; exit status {proc.poll()}; its log ends:\n{tail}") from None
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_group(proc)
        log.close()
