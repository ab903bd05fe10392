"""evolve end to end on tiny configs: Ray tasks, checkpoints, resume, MLflow, registry."""

import re

import numpy as np
import pytest
from mlflow.tracking import MlflowClient

from sparring.champions.registry import load_registered
from sparring.ga.evolution import TIMING_KEYS
from sparring.pipelines.evolve import run
from tests.helpers.configs import SMALL_EVOLVE, config_error

TINY = SMALL_EVOLVE


def results(history):
    return [{k: v for k, v in r.items() if k not in TIMING_KEYS} for r in history]


@pytest.fixture
def evolve_config(pipeline_config, tmp_path):
    def make(*overrides):
        return pipeline_config("evolve", *TINY, f"deals.root={tmp_path / 'deals'}", *overrides)

    return make


def test_tiny_run_logs_checkpoints_and_registers(ray_session, evolve_config, tmp_path):
    cfg = evolve_config(
        "ga.generations=2",
        f"checkpoint_root={tmp_path / 'ck'}",
        "registry.model_name=test-champion",
    )
    out = run(cfg)
    assert sorted(p.name for p in out["checkpoint_dir"].local_path().iterdir()) == [
        "gen-00001.npz",
        "gen-00002.npz",
    ]
    client = MlflowClient(cfg.tracking.uri)
    history = client.get_metric_history(out["run_id"], "best_fitness")
    assert [m.step for m in history] == [0, 1]
    metrics = client.get_run(out["run_id"]).data.metrics
    for table in ("calling_station", "maniac", "random", "tight_aggressive", "mixed"):
        assert f"champion_bb100_vs_{table}" in metrics
    artifacts = {a.path for a in client.list_artifacts(out["run_id"])}
    expected = {"fitness.png", "champion", "champion_benchmark.txt", "trainer_changes.json"}
    assert expected <= artifacts
    chromosome, info, version = load_registered(client, "test-champion", "champion")
    assert version == out["model_version"]
    assert np.array_equal(chromosome, out["state"].champion) and chromosome.dtype == np.int8
    assert info["table_size"] == 6


def test_resume_after_interruption_equals_uninterrupted_run(
    ray_session, evolve_config, tmp_path, capsys
):
    common = ("registry.register=false",)
    first = run(evolve_config("ga.generations=3", f"checkpoint_root={tmp_path / 'a'}", *common))
    straight = first["state"]
    assert first["metrics"]["generations_per_min"] > 0
    # "Killed" after generation 2, and then the newest checkpoint was damaged (truncated): the
    # resume falls back to gen-00001.
    out = run(evolve_config("ga.generations=2", f"checkpoint_root={tmp_path / 'b'}", *common))
    newest = (out["checkpoint_dir"] / "gen-00002.npz").local_path()
    newest.write_bytes(newest.read_bytes()[: newest.stat().st_size // 2])
    capsys.readouterr()
    resumed = run(
        evolve_config(
            "ga.generations=3", f"checkpoint_root={tmp_path / 'b'}", "resume=true", *common
        )
    )["state"]
    assert results(resumed.history) == results(straight.history)
    assert np.array_equal(resumed.population, straight.population)
    assert np.array_equal(resumed.trainers, straight.trainers)
    said = [line for line in capsys.readouterr().out.splitlines() if "damaged" in line]
    assert len(said) == 1 and "gen-00002.npz" in said[0]
    # resumed at its end, a run plays no generation: no rate (it gave 3 over ~0 s, millions)
    done = run(evolve_config("ga.generations=3", f"checkpoint_root={tmp_path / 'a'}",
                             "resume=true", *common))  # fmt: skip
    assert "generations_per_min" not in done["metrics"]


def test_a_checkpoint_of_another_config_is_refused_not_resumed(
    ray_session, evolve_config, tmp_path
):
    """A population-8 checkpoint copied into a population-12 run's directory: the resume
    refuses it in one line (it used to go on from the 8-player state)."""
    from sparring.ga.checkpoint import ForeignCheckpoint

    common = ("registry.register=false", f"checkpoint_root={tmp_path / 'ck'}")
    small = run(evolve_config("ga.generations=1", *common))
    bigger = evolve_config("ga.population=12", "ga.generations=2", "resume=true", *common)
    planted = bigger.checkpoint_dir / "gen-00001.npz"
    planted.write_bytes((small["checkpoint_dir"] / "gen-00001.npz").read_bytes())
    with pytest.raises(ForeignCheckpoint, match=r"gen-00001\.npz: made by config \w+"):
        run(bigger)


def test_same_results_for_one_and_two_workers(ray_session, evolve_config, tmp_path):
    common = ("ga.generations=2", "registry.register=false")
    one = run(evolve_config("ga.chunks=1", f"checkpoint_root={tmp_path / 'one'}", *common))
    two = run(evolve_config("ga.chunks=4", f"checkpoint_root={tmp_path / 'two'}", *common))
    assert results(one["state"].history) == results(two["state"].history)
    assert np.array_equal(one["state"].population, two["state"].population)


def test_the_hall_of_fame_is_the_same_for_any_number_of_workers(
    ray_session, evolve_config, tmp_path
):
    common = (
        "ga.generations=3",
        "registry.register=false",
        "trainers.hall_of_fame=2",
        "trainers.hall_every=1",
    )
    one = run(evolve_config("ga.chunks=1", f"checkpoint_root={tmp_path / 'one'}", *common))
    two = run(evolve_config("ga.chunks=4", f"checkpoint_root={tmp_path / 'two'}", *common))
    assert len(one["state"].hall) == 2
    assert np.array_equal(one["state"].hall, two["state"].hall)
    assert results(one["state"].history) == results(two["state"].history)


def test_a_short_run_beats_the_calling_station_table(ray_session, pipeline_config, tmp_path):
    cfg = pipeline_config(
        "evolve",
        "table_size=10",
        "ga.population=16",
        "ga.generations=4",
        "deals.train=60",
        "deals.heldout=150",
        "deals.equity_trials=150",
        "seed=1",
        f"deals.root={tmp_path / 'deals'}",
        f"checkpoint_root={tmp_path / 'ck'}",
        "registry.register=false",
    )
    out = run(cfg)
    station = next(r for r in out["benchmark"] if r.table == "calling_station")
    assert station.ci_low > 0, station


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("ga.population=2", "ga.population=2 is not allowed"),
        ("ga.p_mutation=1.5", r"ga.p_mutation=1.5 is not allowed: expected a number in \[0, 1\]"),
        ("ga.crossover_policy=best", "ga.crossover_policy=best is not allowed: expected one of"),
        ("trainers.size=3", "trainers.size=3 is not allowed"),
        ("deals.heldout_seed=1", "deals.heldout_seed=1 is not allowed: expected a seed other"),
        ("resume=maybe", "resume=maybe is not allowed: expected true or false"),
        ("ga.generation=3", "ga.generation is not a known key"),
        ("registry.alias=latest", "registry.alias=latest is not allowed: expected null or a name"),
        ("registry.alias=v2", "registry.alias=v2 is not allowed"),
        ("registry.alias='a b'", "registry.alias='a b' is not allowed"),
    ],
)
def test_bad_config_is_refused(override, message):
    assert re.search(message, config_error("evolve", override))
