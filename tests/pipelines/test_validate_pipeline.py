"""The validate pipeline end to end on a tiny grid: real Ray, Parquet, MLflow and SQLite."""

import re

import pytest
from mlflow.tracking import MlflowClient

from sparring.pipelines.validate import RESULTS_SPEC, run, run_cell
from sparring.runtime.storage.datasets import read_table
from tests.helpers.configs import config_error

TINY = ("seeds=2", "hands=[20,60]", "reference_hands=300", "drift.runs=2", "drift.hands=80",
        "match.games=3", "match.series=1", "match.opponents=[heavy_bluffer]")  # fmt: skip


def test_tiny_grid_writes_results_and_logs_the_measures(ray_session, pipeline_config, tmp_path):
    out = tmp_path / "validate.parquet"
    cfg = pipeline_config("validate", *TINY, f"output={out}")
    result = run(cfg)
    table = read_table(out, RESULTS_SPEC)
    scenarios = set(table.column("scenario").to_pylist())
    assert scenarios == {"estimation", "separation", "drift", "match"}
    rows = table.to_pylist()
    estimation = [r for r in rows if r["scenario"] == "estimation"]
    # 3 profiles x 2 sizes x 2 seeds x 6 metrics (minus metrics a profile never gave a chance)
    assert 0 < len(estimation) <= 72
    assert all(r["low"] <= r["value"] <= r["high"] for r in estimation)
    matches = [r for r in rows if r["scenario"] == "match" and r["metric"] == "win"]
    assert len(matches) == 2 * 3  # two arms x three games
    client = MlflowClient(cfg.tracking.uri)
    logged = client.get_run(result["run_id"])
    metrics = logged.data.metrics
    for name in ("error_slope", "coverage", "drift/detected", "drift/false_alarms_per_100_hands",
                 "edge/heavy_bluffer", "brier/model/win_lance"):  # fmt: skip
        assert name in metrics, name
    assert 0 <= metrics["coverage"] <= 1
    artifacts = {a.path for a in client.list_artifacts(result["run_id"], "plots")}
    assert {"plots/error_vs_n.png", "plots/reliability_model.png"} <= artifacts
    assert logged.data.tags["pipeline"] == "validate"


def test_cells_do_not_depend_on_where_they_run():
    profiles = {"p": {"aggression": 0.4}}
    cell = ("estimation", "p", 30, 0)
    assert run_cell(cell, profiles, 5, 0.9) == run_cell(cell, profiles, 5, 0.9)
    assert run_cell(cell, profiles, 5, 0.9) != run_cell(cell, profiles, 6, 0.9)


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("profiles.cautious.aggression=1.5", r"aggression=1.5 is not allowed: expected a number"),
        ("+profiles.balanced.bluffs=0.2", "balanced.bluffs=0.2 is not allowed: expected a profile"),
        ("estimate=[nobody]", "estimate=nobody is not allowed: expected a defined profile"),
        ("drift.shifted=balanced", "expected a profile with shift_after"),
        ("hands=[100]", "at least two different sample sizes"),
        ("hands=[100,100]", "at least two different sample sizes"),  # one x: no slope
        ("drift.hands=30", "drift.hands=30 is not allowed: expected more than the shift"),
        ("seeds=1", "seeds=1 is not allowed"),
    ],
)
def test_bad_configs_are_refused_before_any_work(override, message):
    assert re.search(message, config_error("validate", override))
