"""Real services on loopback: an MLflow tracking server, and a Ray head taking a job."""

import json
import os
import subprocess
from pathlib import Path

from mlflow.tracking import MlflowClient

from sparring.launch.submit import EXCLUDES
from sparring.runtime.processes import descendants
from sparring.runtime.tracking.runs import tracked_run
from tests.helpers.commands import BIN, ROOT
from tests.helpers.services import (
    RANDOM_WORKER_PORTS,
    free_port,
    own_ray_temp,
    stop_ray_node,
    wait_for,
)


def test_a_run_is_logged_through_the_tracking_server(mlflow_server, tmp_path):
    cfg = {"tracking": {"uri": mlflow_server, "experiment": "over-http"}, "seed": 1}
    with tracked_run(cfg, "unit") as run:
        run.log_metrics({"x": 2.5})
        run.log_text("served artifact", "note.txt")
    client = MlflowClient(mlflow_server)
    got = client.get_run(run.run_id)
    assert got.data.metrics["x"] == 2.5 and got.data.params["seed"] == "1"
    path = client.download_artifacts(run.run_id, "note.txt", str(tmp_path))
    assert Path(path).read_text() == "served artifact"


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def test_the_tracking_server_runs_without_mlflows_job_runner(mlflow_server):
    # MLflow launches its job runner (seven huey consumers, each importing all of MLflow) right
    # after the web server's process and before the server answers: by now it would be there.
    port = mlflow_server.rsplit(":", 1)[1]
    (server,) = [
        int(pid)
        for pid in os.listdir("/proc")
        if pid.isdigit()
        and " server " in (line := _cmdline(int(pid)))
        and f"--port {port} " in line
        and "bin/mlflow" in line
    ]
    below = [_cmdline(pid) for pid in descendants(server)]
    assert below and all("uvicorn" in line for line in below), below
    assert not any("mlflow.server.jobs" in line or "huey" in line for line in below)


def test_job_submitted_to_a_real_head_succeeds_and_logs_to_mlflow(tmp_path):
    env = dict(
        os.environ,
        RAY_USAGE_STATS_ENABLED="0",
        RAY_AUTH_MODE="token",
        PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}",
    )
    env.pop("RAY_ADDRESS", None)
    with own_ray_temp(env) as env:  # its own ray_current_cluster: see own_ray_temp
        _submit_equity_job(env, tmp_path)


def _submit_equity_job(env: dict[str, str], tmp_path: Path) -> None:
    gcs, dash = free_port(), free_port()
    head = subprocess.Popen(
        [
            str(BIN / "ray"),
            "start",
            "--head",
            f"--port={gcs}",
            "--num-cpus=2",
            "--dashboard-host=127.0.0.1",
            f"--dashboard-port={dash}",
            # Its own agent port: the default (52365) is taken by the test session's Ray, and
            # an agent that cannot bind leaves the head with "No available agent to submit job".
            f"--dashboard-agent-listen-port={free_port()}",
            "--node-ip-address=127.0.0.1",
            "--include-dashboard=true",
            *RANDOM_WORKER_PORTS,
            "--block",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_for(f"http://127.0.0.1:{dash}/api/version", 120)
        db = tmp_path / "jobs.db"
        runtime_env = {"excludes": EXCLUDES}  # anchored: the package data goes along
        submit = subprocess.run(
            [
                str(BIN / "ray"),
                "job",
                "submit",
                "--address",
                f"http://127.0.0.1:{dash}",
                "--working-dir",
                str(ROOT),
                "--runtime-env-json",
                json.dumps(runtime_env),
                "--",
                "python",
                "pipelines/equity.py",
                "ray=cluster",
                "classes=[AA]",
                "opponents=[1]",
                "trials=200",
                f"tracking.uri=sqlite:///{db}",
                # (a relative one would be lost with the job's directory: refused in a job)
                f"tracking.artifact_root={tmp_path / 'artifacts'}",
                f"output={tmp_path / 'eq.parquet'}",
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert submit.returncode == 0, submit.stdout[-2000:] + submit.stderr[-2000:]
        assert "succeeded" in submit.stdout + submit.stderr
        client = MlflowClient(f"sqlite:///{db}")
        runs = client.search_runs([client.get_experiment_by_name("equity").experiment_id])
        assert len(runs) == 1 and runs[0].info.status == "FINISHED"
        assert (tmp_path / "eq.parquet").exists()
    finally:
        stop_ray_node(head)
