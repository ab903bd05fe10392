"""Loopback by default: everything a pipeline's process tree listens on is 127.0.0.1."""

from __future__ import annotations

import socket
import subprocess
import time

import pytest

from sparring.runtime.ray import local_head
from tests.helpers.commands import start_pipeline
from tests.helpers.sockets import LOOPBACK, listeners


def test_the_helper_sees_a_socket_on_every_interface():
    """The check can fail: a server bound to 0.0.0.0 in this process is reported as such."""
    import os

    with socket.socket() as server:
        server.bind(("0.0.0.0", 0))
        server.listen()
        port = server.getsockname()[1]
        found = {(s.ip, s.port) for s in listeners(os.getpid())}
    assert ("0.0.0.0", port) in found


@pytest.mark.parametrize("ray", ["embedded", "local"])
def test_a_pipeline_and_its_ray_listen_on_loopback_only(tmp_path, ray):
    """A whole evolve run (deal generation, generations, champion benchmark) polled every 0.3 s:
    the GCS, the raylet, the agents and every worker listen on 127.0.0.1 and nowhere else, in
    the driver's own Ray (embedded) and in the machine's shared local head (local)."""
    head = local_head.ensure() if ray == "local" else None
    proc = start_pipeline(
        "evolve",
        "ga.population=8",
        "ga.generations=20",
        "deals.train=40",
        "deals.heldout=100",
        "registry.register=false",
        f"ray={ray}",
        f"tracking.uri=sqlite:///{tmp_path / 'mlflow.db'}",
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    seen = set()
    deadline = time.monotonic() + 300
    while proc.poll() is None and time.monotonic() < deadline:
        seen |= listeners(proc.pid)
        if head is not None:
            seen |= listeners(head.pid)
        time.sleep(0.3)
    if proc.poll() is None:
        proc.kill()
    _, err = proc.communicate()
    assert proc.returncode == 0, err.decode()[-2000:]
    processes = {s.process for s in seen}
    assert {"gcs_server", "raylet"} <= processes, seen  # the poll saw Ray's servers
    outside = sorted((s.process, s.ip, s.port) for s in seen if s.ip not in LOOPBACK)
    assert not outside, f"listening beyond loopback: {outside}"
