"""A driver killed with -9 leaves its MLflow run RUNNING; the next run of the same pipeline
marks it KILLED and says how that was found."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from mlflow.tracking import MlflowClient

from sparring.runtime.tracking.runs import ENDED_TAG, driver_gone, driver_id, tracked_run
from tests.helpers.commands import ROOT

DRIVER = """
import sys, time
from sparring.runtime.tracking.runs import tracked_run
with tracked_run({"tracking": {"uri": sys.argv[1], "artifact_root": sys.argv[2]}}, "orphans"):
    print("running", flush=True)
    time.sleep(600)
"""


def test_a_run_whose_driver_was_killed_is_marked_killed_by_the_next(tmp_path):
    uri = f"sqlite:///{tmp_path / 'm.db'}"
    tracking = {"uri": uri, "artifact_root": str(tmp_path / "art")}
    proc = subprocess.Popen(
        [sys.executable, "-c", DRIVER, uri, tracking["artifact_root"]],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    assert proc.stdout.readline().strip() == "running"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    client = MlflowClient(uri)
    exp = client.get_experiment_by_name("orphans").experiment_id
    [orphan] = client.search_runs([exp])
    assert orphan.info.status == "RUNNING"  # what kill -9 leaves behind

    with tracked_run({"tracking": tracking}, "orphans") as run:
        pass
    after = client.get_run(orphan.info.run_id)
    assert after.info.status == "KILLED"
    assert run.run_id in after.data.tags[ENDED_TAG]
    assert client.get_run(run.run_id).info.status == "FINISHED"


def test_a_live_driver_is_never_taken_for_gone():
    assert not driver_gone(driver_id())
    assert not driver_gone(f"another-host:{os.getpid()}:1")  # cannot tell: leave it alone
    assert driver_gone(driver_id().rsplit(":", 1)[0] + ":1")  # same pid, other start: reused
