"""The equity pipeline end to end on a tiny config: real Ray, real Parquet, real MLflow."""

import numpy as np
import pytest
from mlflow.tracking import MlflowClient

from sparring.pipelines.equity import run
from sparring.poker.preflop import PREFLOP_SPEC, class_equity, load_table
from sparring.runtime.storage.datasets import read_metadata, read_table
from tests.helpers.commands import run_pipeline
from tests.helpers.configs import config_error


def test_tiny_run_writes_table_and_mlflow_run_then_reuses(ray_session, pipeline_config, tmp_path):
    out = tmp_path / "preflop.parquet"
    cfg = pipeline_config(
        "equity", "trials=300", "opponents=[1,3]", "classes=[AA,72o,AKs]", f"output={out}"
    )
    first = run(cfg)
    table = read_table(out, PREFLOP_SPEC)
    assert table.schema.equals(PREFLOP_SPEC.schema)
    assert table.num_rows == 6
    meta = read_metadata(out)
    assert meta["dataset"] == "preflop_equity" and meta["schema_version"] == "1"
    assert meta["seed"] == "0" and meta["trials"] == "300"
    # Each cell is exactly what the kernel computes for its own stream.
    rows = {(r["class"], r["opponents"]): r for r in table.to_pylist()}
    assert rows["AA", 3]["equity"] == pytest.approx(class_equity("AA", 3, 300, 0).equity, 1e-6)
    assert rows["AA", 1]["equity"] > rows["AKs", 1]["equity"] > rows["72o", 1]["equity"]

    client = MlflowClient(cfg.tracking.uri)
    mlrun = client.get_run(first["run_id"])
    assert mlrun.info.status == "FINISHED"
    assert mlrun.data.params["trials"] == "300"
    assert mlrun.data.params["ray.num_cpus"] == "None"
    assert mlrun.data.metrics["cells"] == 6 and mlrun.data.metrics["reused"] == 0
    assert mlrun.data.metrics["trials_per_s"] > 0
    assert first["metrics"][cfg.objective] == mlrun.data.metrics[cfg.objective]  # the objective
    assert mlrun.data.tags["pipeline"] == "equity" and len(mlrun.data.tags["config_hash"]) == 12

    stamp = out.stat().st_mtime_ns
    second = run(cfg)
    assert client.get_run(second["run_id"]).data.metrics["reused"] == 1
    assert out.stat().st_mtime_ns == stamp  # not rewritten


def test_results_do_not_depend_on_workers(ray_session, pipeline_config, tmp_path):
    from sparring.poker.preflop import class_rows
    from sparring.runtime.ray.parallel import parallel_map

    shared = {"opponents": (2,), "trials": 200, "seed": 9}
    names = ["AA", "KK", "T9s", "72o"]
    two = parallel_map(class_rows, names, shared=shared, progress=False)
    one = parallel_map(class_rows, names, shared=shared, num_cpus=2, progress=False)
    serial = [class_rows(n, **shared) for n in names]
    assert two == one == serial


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("trials=0", "trials=0 is not allowed"),
        ("opponents=[1,10]", "opponents=[1, 10] is not allowed"),
        ("classes=[AA,XYs]", "classes=XYs is not allowed"),
        ("seed=-1", "seed=-1 is not allowed"),
        ("trials=many", "trials=many is not allowed: expected an integer"),
        ("force=maybe", "force=maybe is not allowed: expected true or false"),
        (
            "tials=10",
            "tials is not a known key: allowed keys are objective, direction, seed, trials",
        ),
    ],
)
def test_bad_config_fails_before_any_work(override, message):
    assert message in config_error("equity", override)


def test_command_line_reports_a_bad_value_without_starting_ray(tmp_path):
    proc = run_pipeline("equity", "trials=-5", cwd=tmp_path, timeout=120)
    assert proc.returncode != 0
    assert "trials=-5 is not allowed: expected an integer in 1..100000000" in proc.stderr


def test_shipped_default_table_is_complete_and_sane():
    grid = load_table()
    assert grid.shape == (169, 10)
    assert not np.isnan(grid[:, 1:]).any()
    # Equity falls as opponents are added, for every class.
    assert np.all(np.diff(grid[:, 1:], axis=1) < 0)
    # Reference values (spec): AKs is class 13.
    assert grid[13, 1] == pytest.approx(0.6706, abs=0.005)
    assert grid[13, 9] == pytest.approx(0.2072, abs=0.005)
    assert grid[0, 1] == pytest.approx(0.8520, abs=0.005)  # AA heads-up
