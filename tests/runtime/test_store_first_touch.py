"""Four drivers start at the same moment on a new SQLite MLflow store: all succeed, all four
runs are recorded (the first touch creates and migrates the store under a lock)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from mlflow.tracking import MlflowClient

from tests.helpers.commands import ROOT

DRIVER = """
import sys, time
from sparring.runtime.tracking.runs import tracked_run
uri, start, name = sys.argv[1], float(sys.argv[2]), sys.argv[3]
while time.time() < start:
    time.sleep(0.001)
with tracked_run({"tracking": {"uri": uri, "artifact_root": sys.argv[4]}, "who": name},
                 "first_touch") as run:
    run.log_metrics({"value": 1.0})
"""


def test_four_drivers_on_a_new_store_all_record_their_run(tmp_path):
    uri = f"sqlite:///{tmp_path / 'fresh.db'}"
    start = time.time() + 8  # every process is imported and waiting by then
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", DRIVER, uri, str(start), f"d{i}", str(tmp_path / "art")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        )
        for i in range(4)
    ]
    results = [p.communicate(timeout=180) for p in procs]
    for proc, (_, err) in zip(procs, results, strict=True):
        assert proc.returncode == 0, err[-2000:]
    client = MlflowClient(uri)
    runs = client.search_runs([client.get_experiment_by_name("first_touch").experiment_id])
    assert sorted(r.data.params["who"] for r in runs) == ["d0", "d1", "d2", "d3"]
    assert all(r.info.status == "FINISHED" for r in runs)
