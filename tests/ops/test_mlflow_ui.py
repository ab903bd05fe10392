"""The MLflow UI as a person sees it: a real run of a pipeline, then headless Chromium.

Chromium comes from Debian's packages (``.ci/run`` installs it); without it this test is
skipped on a developer's machine and fails in CI."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from mlflow.tracking import MlflowClient

from sparring.launch.screenshots import browser
from tests.helpers.commands import run_pipeline

PNG = b"\x89PNG\r\n\x1a\n"


def test_experiment_and_run_pages_show_name_source_datasets_params_metrics(tmp_path):
    if browser() is None:
        if os.environ.get("CI"):
            pytest.fail("no headless Chromium in CI: .ci/run installs Debian's chromium")
        pytest.skip("no headless Chromium (apt-get install chromium)")
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    evolve = run_pipeline(
        "evolve",
        "ga.population=8",
        "ga.generations=1",
        "table_size=6",
        "deals.train=30",
        "deals.heldout=60",
        "deals.equity_trials=50",
        "ray.log_to_driver=false",  # (where it runs: kept out of the run's name, below)
        f"tracking.uri={uri}",
        cwd=tmp_path,
        timeout=600,
    )
    assert evolve.returncode == 0, evolve.stderr[-3000:]
    client = MlflowClient(uri)
    (run,) = client.search_runs([client.get_experiment_by_name("evolve").experiment_id])
    # what the pages must show, as the run records it
    assert run.info.run_name.startswith("evolve ") and " population=8" in run.info.run_name
    assert "log_to_driver" not in run.info.run_name and "tracking.uri" not in run.info.run_name
    assert run.data.tags["mlflow.source.name"] == "pipelines/evolve.py"
    assert sorted(d.dataset.name for d in run.inputs.dataset_inputs) == [
        "deals-heldout",
        "deals-train",
    ]
    assert "config.yaml" in [a.path for a in client.list_artifacts(run.info.run_id)]

    shots = tmp_path / "ui"
    check = subprocess.run(
        [
            sys.executable,
            "-m",
            "sparring.launch.screenshots",
            "--tracking-uri",
            uri,
            "--out",
            str(shots),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    for page in ("experiment", "run"):
        data = (shots / f"{page}.png").read_bytes()
        assert data.startswith(PNG) and len(data) > 20_000  # a rendered page, not a blank
    assert check.stdout.count(" ok") == 2
