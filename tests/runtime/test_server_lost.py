"""An MLflow server lost mid-run (#27 item 8): the work goes on, the records wait and are sent
when it answers, each request is bounded, and a server that never comes back ends the run with
one line saying how to record it; no checkpoint is lost.

Real servers: ``mlflow server`` processes on loopback, stopped and restarted on the same port
and store.
"""

from __future__ import annotations

import subprocess
import sys
from contextlib import ExitStack
from urllib.parse import urlparse

import pytest
from mlflow.tracking import MlflowClient

from sparring.runtime.explain import one_line
from sparring.runtime.tracking.outbox import TrackingLost
from sparring.runtime.tracking.runs import tracked_run
from tests.helpers.commands import ROOT, run_pipeline, start_pipeline, wait_while_running
from tests.helpers.configs import TINY_EVOLVE
from tests.helpers.services import mlflow_server


def config(uri: str, **tracking) -> dict:
    return {"tracking": {"uri": uri, "artifact_root": None, **tracking}, "who": "lost"}


def test_records_made_while_the_server_is_down_are_sent_when_it_answers(tmp_path, capsys):
    with ExitStack() as server:
        uri = server.enter_context(mlflow_server(tmp_path / "server"))
        port = urlparse(uri).port
        with tracked_run(config(uri), "server_lost") as run:
            run.log_metrics({"generation": 0.0}, step=0)
            server.close()  # the server goes away mid-run
            run.log_metrics({"generation": 1.0}, step=1)  # kept, the work goes on
            run.log_metrics({"generation": 2.0}, step=2)
            run.set_tags({"phase": "while down"})
            said = capsys.readouterr().err
            assert said.count("does not answer; the work goes on") == 1
            server.enter_context(mlflow_server(tmp_path / "server", port))  # back
        assert "answers again" in capsys.readouterr().err
        client = MlflowClient(uri)
        got = client.get_run(run.run_id)
        assert got.info.status == "FINISHED" and got.data.tags["phase"] == "while down"
        history = client.get_metric_history(run.run_id, "generation")
        assert sorted((m.step, m.value) for m in history) == [(0, 0.0), (1, 1.0), (2, 2.0)]


NEVER_BACK = """
import sys
from sparring.runtime.explain import one_line
from sparring.runtime.tracking.runs import tracked_run
from tests.helpers.services import mlflow_server
from pathlib import Path
server = mlflow_server(Path(sys.argv[1]))
uri = server.__enter__()
try:
    with tracked_run({"tracking": {"uri": uri, "artifact_root": None}}, "server_lost") as run:
        run.log_metrics({"generation": 0.0}, step=0)
        server.__exit__(None, None, None)
        for step in range(1, 6):
            run.log_metrics({"generation": float(step)}, step=step)
except Exception as exc:
    print("ENDED", type(exc).__name__, one_line(exc))
"""


def test_a_server_that_never_comes_back_ends_the_run_in_one_line_within_bounds(tmp_path):
    # MLflow's own retries (7, backoff factor 2, 120 s timeouts) would hold this process
    # minutes per write; bounded, five writes and the run's end take seconds.
    done = subprocess.run(
        [sys.executable, "-c", NEVER_BACK, str(tmp_path / "server")],
        capture_output=True,
        text=True,
        timeout=240,  # the server's start included
        cwd=ROOT,
    )
    [ended] = [line for line in done.stdout.splitlines() if line.startswith("ENDED")]
    assert ended.startswith("ENDED TrackingLost the MLflow server at http://127.0.0.1:")
    assert "records of this run (its end among them) were not recorded" in ended
    assert "Run the same command again once the server answers" in ended
    assert done.stderr.count("does not answer; the work goes on") == 1, done.stderr[-2000:]


def test_a_tracking_lost_error_is_its_own_one_line():
    lost = TrackingLost("the MLflow server at http://h:1 stopped answering at 10:00:00: ...")
    assert one_line(lost) == str(lost)
    raw = Exception(
        "API request to http://u:pw@h:5000/api/2.0/mlflow/runs/get failed with exception "
        "HTTPConnectionPool(host='h', port=5000): Max retries exceeded with url: ..."
    )
    line = one_line(raw)
    assert line.startswith("the MLflow server does not answer (http://***@h:5000/")
    assert "pw" not in line


def test_a_ray_cluster_that_does_not_answer_is_named_not_the_mlflow_server(monkeypatch):
    from ray.job_submission import JobSubmissionClient

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    with pytest.raises(ConnectionError) as raised:  # Ray's own error, from Ray's own code
        JobSubmissionClient("http://127.0.0.1:9")
    line = one_line(raised.value)
    assert line.startswith("the Ray cluster does not answer (Failed to connect to Ray at "), line
    assert "127.0.0.1:9" in line and "MLflow" not in line
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.1:6379")  # a job's driver: the job's cluster
    assert "(at 10.0.0.1:6379)" in one_line(raised.value)
    # the control: the same kind of error raised outside Ray is still the tracking server's
    assert one_line(ConnectionError("refused")).startswith("the MLflow server does not answer")


# Enough short generations that the run is still going when the server goes, on any machine.
GENERATIONS = 20
EVOLVE = (*TINY_EVOLVE, f"ga.generations={GENERATIONS}", "resume=true")


@pytest.mark.slow
def test_evolve_outlives_its_server_keeps_every_checkpoint_and_resumes(tmp_path):
    root = tmp_path / "server"
    with ExitStack() as server:
        uri = server.enter_context(mlflow_server(root))
        port = urlparse(uri).port
        overrides = [
            *EVOLVE,
            f"deals.root={tmp_path / 'deals'}",
            f"checkpoint_root={tmp_path / 'ck'}",
            f"tracking.uri={uri}",
        ]
        proc = start_pipeline(
            "evolve",
            *overrides,
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        wait_while_running(
            proc,
            lambda: list((tmp_path / "ck").glob("*/gen-00002.npz")),
            "checkpoint of generation 2",
        )
        server.close()  # gone, and not back before the run ends
        _, err = proc.communicate(timeout=300)
    assert proc.returncode == 2, err[-3000:]
    assert "Traceback" not in err, err[-3000:]
    last = err.strip().splitlines()[-1]
    assert last.startswith("error: the MLflow server") and "the same command again" in last
    [ck] = (tmp_path / "ck").iterdir()
    newest = sorted(p.name for p in ck.glob("gen-*.npz"))[-1]
    assert newest == f"gen-{GENERATIONS:05d}.npz"  # work went on

    with mlflow_server(root, port):  # back: the same command records the run
        again = run_pipeline("evolve", *overrides, cwd=tmp_path, timeout=300)
        assert again.returncode == 0, again.stderr[-3000:]
        assert f"resuming from generation {GENERATIONS}" in again.stdout + again.stderr
        client = MlflowClient(uri)
        runs = client.search_runs([client.get_experiment_by_name("evolve").experiment_id])
        assert sorted(r.info.status for r in runs) == ["FINISHED", "KILLED"]
