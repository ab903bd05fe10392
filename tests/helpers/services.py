"""Real services on loopback for tests: free ports, waiting for an answer, an MLflow server."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sparring.runtime.net import free_port, stop_group, wait_for
from sparring.runtime.tracking.servers import server_argv, server_environment
from tests.helpers.commands import BIN

__all__ = [
    "S3_CREDENTIALS",
    "LocalCluster",
    "S3Server",
    "free_port",
    "local_cluster",
    "mlflow_server",
    "own_ray_temp",
    "s3_server",
    "stop_ray_node",
    "wait_for",
]

# What the tests' S3 server accepts (any key works with moto; these never leave the machine).
S3_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "sparring-test",
    "AWS_SECRET_ACCESS_KEY": "sparring-test-secret",
    "AWS_REGION": "us-east-1",
    "AWS_EC2_METADATA_DISABLED": "true",  # never wait for an instance-metadata service
}


@contextmanager
def mlflow_server(root: Path, port: int | None = None) -> Iterator[str]:
    """An ``mlflow server`` on 127.0.0.1 (``port``, else a free one) over a sqlite store in
    ``root``; yields its URL and ends it (by its process group) afterwards. The same ``root``
    and ``port`` again is the same server restarted."""
    root.mkdir(parents=True, exist_ok=True)
    port = port or free_port()
    log = open(root / "server.log", "a")  # noqa: SIM115 (closed in the finally below)
    proc = subprocess.Popen(
        server_argv(port, f"sqlite:///{root / 'server.db'}", root / "artifacts"),
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env=server_environment(os.environ),  # as Sparring starts its servers: no job runner
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


@dataclass
class S3Server:
    """A real S3-protocol server (moto's standalone server) on 127.0.0.1."""

    endpoint: str  # http://127.0.0.1:<port>
    log: Path

    @property
    def env(self) -> dict[str, str]:
        """What a process needs to reach it through the standard environment."""
        return {**S3_CREDENTIALS, "AWS_ENDPOINT_URL": self.endpoint}

    def bucket(self, name: str) -> str:
        """Create bucket ``name``; returns ``s3://<name>``."""
        import pyarrow.fs as pafs

        host = self.endpoint.split("://", 1)[1]
        fs = pafs.S3FileSystem(
            endpoint_override=host, scheme="http", allow_bucket_creation=True, region="us-east-1"
        )
        fs.create_dir(name)
        return f"s3://{name}"

    def requests(self) -> str:
        """The server's request log so far (one line per request)."""
        return self.log.read_text()


@contextmanager
def s3_server(root: Path) -> Iterator[S3Server]:
    """moto's S3 server on a free 127.0.0.1 port (state in memory); ends it by its process
    group afterwards."""
    root.mkdir(parents=True, exist_ok=True)
    port = free_port()
    log_path = root / "s3.log"
    log = open(log_path, "w")  # noqa: SIM115 (closed in the finally below)
    proc = subprocess.Popen(
        [str(BIN / "moto_server"), "-H", "127.0.0.1", "-p", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        try:
            wait_for(f"http://127.0.0.1:{port}/moto-api/", 120)
        except TimeoutError as exc:
            raise TimeoutError(f"{exc}; its log: {log_path.read_text()[-1000:]}") from None
        yield S3Server(f"http://127.0.0.1:{port}", log_path)
    finally:
        stop_group(proc)
        log.close()


# Waits in one process for a cluster to show ``want`` alive nodes; prints their ids.
_NODES_UP = """
import sys, time, ray
ray.init(address=sys.argv[1], logging_level="ERROR", log_to_driver=False)
want, deadline = int(sys.argv[2]), time.time() + float(sys.argv[3])
while time.time() < deadline:
    alive = [n["NodeID"] for n in ray.nodes() if n["Alive"]]
    if len(alive) >= want:
        print(" ".join(alive))
        sys.exit(0)
    time.sleep(0.5)
sys.exit(1)
"""


@dataclass
class LocalCluster:
    """A Ray head and worker nodes started with ``ray start`` on this machine."""

    address: str  # host:port of the GCS
    env: dict[str, str]  # what a driver of this cluster needs (token auth)
    head: subprocess.Popen
    workers: list[subprocess.Popen]


def stop_ray_node(proc: subprocess.Popen, grace_s: float = 60.0) -> None:
    """End a ``ray start --block`` started in its own session, and everything of its group.

    SIGTERM goes to ``ray start`` alone: it tears its node down in about 3 s. The same signal
    sent to the whole group reaches the raylet, GCS and dashboard too, and the teardown then
    waits about 30 s for processes that are already going. What is left after it (or after
    ``grace_s``) is killed by group."""
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=grace_s)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


# `ray start` hands its workers ports from 10002 up, checked free one by one: two raylets on
# one machine (a test's cluster beside the session's Ray, the nodes of `local_cluster`) check
# the same port, and the worker that binds second dies, a job's driver with it (a submitted
# job FAILED before its run, seen under two test workers). Port 0: each binds a port the OS
# picks, as `ray.init` does.
RANDOM_WORKER_PORTS = ["--min-worker-port=0", "--max-worker-port=0"]


@contextmanager
def own_ray_temp(env: dict[str, str]) -> Iterator[dict[str, str]]:
    """``env`` with a Ray temp directory of its own (``RAY_TMPDIR``), removed afterwards.

    `ray start --head` writes its address to ``<temp>/ray/ray_current_cluster``, and a job's
    supervisor points the job's driver at whatever that file says (``address="auto"``): with
    two heads started at once on one machine (two test workers), a job could join the other
    test's head, which went away (seen in CI: a driver retrying a gone GCS until it failed).
    The directory is short: Ray's socket paths under it must fit in 107 bytes."""
    temp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")
    try:
        yield {**env, "RAY_TMPDIR": temp}
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def _ray_start(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    with open(log, "w") as out:
        return subprocess.Popen(
            [str(BIN / "ray"), "start", *args, *RANDOM_WORKER_PORTS, "--block"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group: ended by PID, never `ray stop`
        )


@contextmanager
def local_cluster(root: Path, workers: int = 1, cpus: int = 1) -> Iterator[LocalCluster]:
    """A head and ``workers`` nodes of ``cpus`` CPUs each, every one a separate raylet on this
    machine; yields once all are alive and ends exactly these processes afterwards.

    Ray turns a node address of 127.0.0.1 into the machine's own address for a node that may
    have peers, so the nodes register (and listen) there; nothing here is reachable from a
    network this sandbox does not have, and token auth is on."""
    from ray._common.network_utils import node_ip_address_from_perspective

    root.mkdir(parents=True, exist_ok=True)
    ip = node_ip_address_from_perspective()
    env = {
        **os.environ,
        "RAY_USAGE_STATS_ENABLED": "0",
        "RAY_AUTH_MODE": "token",
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
    }
    env.pop("RAY_ADDRESS", None)
    with own_ray_temp(env) as env:
        yield from _local_cluster(root, env, ip, workers, cpus)


def _local_cluster(
    root: Path, env: dict[str, str], ip: str, workers: int, cpus: int
) -> Iterator[LocalCluster]:
    port = free_port()
    address = f"{ip}:{port}"
    common = [f"--num-cpus={cpus}", f"--node-ip-address={ip}"]
    head = _ray_start(
        [
            "--head",
            f"--port={port}",
            "--include-dashboard=false",
            f"--dashboard-agent-listen-port={free_port()}",
            *common,
        ],
        env,
        root / "head.log",
    )
    started: list[subprocess.Popen] = []
    try:
        _wait_nodes(address, 1, env)
        for i in range(workers):
            started.append(
                _ray_start(
                    [
                        f"--address={address}",
                        f"--dashboard-agent-listen-port={free_port()}",
                        *common,
                    ],
                    env,
                    root / f"worker-{i}.log",
                )
            )
        _wait_nodes(address, 1 + workers, env)
        yield LocalCluster(address, env, head, started)
    finally:
        for proc in [*started, head]:
            stop_ray_node(proc)


def _wait_nodes(address: str, want: int, env: dict[str, str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _NODES_UP, address, str(want), "180"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if proc.returncode != 0:
        raise TimeoutError(f"{want} Ray nodes at {address} not alive: {proc.stderr[-1000:]}")
