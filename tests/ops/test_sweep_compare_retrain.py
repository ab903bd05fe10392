"""Sweeps grouped under a parent run, the compare table, and retraining decisions."""

import numpy as np
import pytest
from mlflow.tracking import MlflowClient

from sparring.champions.registry import load_registered, log_champion, register
from sparring.pipelines.retrain import run as retrain
from sparring.poker.bots import calling_station, tight_aggressive
from sparring.reporting.compare import compare
from sparring.runtime.config import ConfigError
from sparring.runtime.tracking.runs import experiment_id
from tests.helpers.commands import run_pipeline


def test_two_point_sweep_is_grouped_under_a_parent_run(tmp_path):
    db = f"sqlite:///{tmp_path / 'sweep.db'}"
    proc = run_pipeline(
        "equity",
        "-m",
        "sweep=equity_trials",
        "classes=[AA,72o]",
        "opponents=[1]",
        f"tracking.uri={db}",
        f"output={tmp_path / 'eq.parquet'}",
        f"hydra.sweep.dir={tmp_path}/mr",
        cwd=tmp_path,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    client = MlflowClient(db)
    runs = client.search_runs([client.get_experiment_by_name("equity").experiment_id])
    parents = [r for r in runs if r.data.tags.get("sweep_parent") == "true"]
    children = [r for r in runs if r not in parents]
    assert len(parents) == 1 and len(children) == 2
    sweep_id = parents[0].data.tags["sweep_id"]
    assert {r.data.tags["sweep_id"] for r in children} == {sweep_id}
    assert {r.data.tags["mlflow.parentRunId"] for r in children} == {parents[0].info.run_id}
    assert sorted(r.data.params["trials"] for r in children) == ["1000", "4000"]

    table = compare(db, "equity", "mean_stderr", ["cells"], output_dir=tmp_path / "cmp")
    assert table.differing == ["trials"]  # the only param that differs between the runs
    assert len(table.runs) == 2 and table.plot.exists()
    stderr = [r["metrics"]["mean_stderr"] for r in table.runs]
    assert stderr == sorted(stderr)  # best first: equity's objective, minimised
    with pytest.raises(ConfigError, match="experiment=nope is not allowed: expected an experiment"):
        compare(db, "nope", "x")


TINY = (
    "table_size=6",
    "ga.population=10",
    "deals.train=30",
    "deals.heldout=120",
    "deals.equity_trials=80",
    "deals.shard_size=40",
    "seed=2",
)


def registered(cfg, chromosome, name):
    client = MlflowClient(cfg.tracking.uri)
    # its artifacts beside the store (a bare create_experiment would write ./mlruns in the cwd)
    exp = experiment_id(client, f"seed-{name}", cfg.tracking.artifact_root)
    run = client.create_run(exp)
    log_champion(client, run.info.run_id, chromosome, {"table_size": 6})
    client.set_terminated(run.info.run_id)
    return register(client, name, run.info.run_id, "champion")


def test_retrain_promotes_a_better_challenger_keeps_a_strong_champion_and_is_idempotent(
    ray_session, pipeline_config, tmp_path
):
    def cfg(name, rid, generations):
        return pipeline_config(
            "retrain",
            *TINY,
            f"ga.generations={generations}",
            f"registry.model_name={name}",
            f"retrain.id={rid}",
            f"deals.root={tmp_path / 'deals'}",
            f"retrain.checkpoint_root={tmp_path / 'ck'}",
            f"league.cache_dir={tmp_path / 'league'}",
        )

    weak = cfg("weak-champion", "day-1", 3)
    v1 = registered(weak, calling_station(), "weak-champion")
    out = retrain(weak)
    assert out["decision"] == "promoted" and out["low"] > 0
    client = MlflowClient(weak.tracking.uri)
    chromosome, _, version = load_registered(client, "weak-champion")
    assert version != v1 and not np.array_equal(chromosome, calling_station())
    # the new champion's league rating: above the champion it replaced, logged and tagged
    rating = out["metrics"]["league_rating"]
    assert out["metrics"]["league_rating_low"] <= rating <= out["metrics"]["league_rating_high"]
    tags = client.get_model_version("weak-champion", version).tags
    assert tags["league_rating"].startswith(f"{rating:+.0f} [")
    old = client.get_model_version("weak-champion", v1).tags["league_rating"]
    assert int(old.split()[0]) < round(rating)
    # the new version's source run is this retrain: it carries its champion's bb/100 (the
    # evolved challenger's), so `compare --model` ranks @champion by a value, not "-"
    table = compare(weak.tracking.uri, None, "champion_bb100", model="weak-champion",
                    output_dir=tmp_path / "cmp")  # fmt: skip
    [now] = [r for r in table.runs if "@champion" in r["name"]]
    assert now["run_id"] == out["run_id"] and now["metrics"]["champion_bb100"] is not None
    assert now["metrics"]["champion_bb100"] == out["metrics"]["champion_bb100"]

    again = retrain(cfg("weak-champion", "day-1", 3))  # the same id does nothing twice ...
    assert again["rerun"] and again["run_id"] == out["run_id"]  # ... and repeats the decision
    assert again["decision"] == "promoted" and again["low"] == out["low"]
    assert load_registered(client, "weak-champion")[2] == version

    strong = cfg("strong-champion", "day-1", 1)
    v_strong = registered(strong, tight_aggressive(), "strong-champion")
    kept = retrain(strong)
    assert kept["decision"] == "kept"
    assert load_registered(client, "strong-champion")[2] == v_strong


def test_the_sprt_plays_deals_in_looks_until_it_decides(pipeline_config):
    """``retrain.test=sprt``: the edges it decides on are the first deals of the fixed test's
    edges, cut where the SPRT first decides (a whole look is played, but the test reads the
    deals in order); H1 promotes, H0 keeps, and deals that run out first keep."""
    from sparring.ga.promotion import paired_edges
    from sparring.pipelines.retrain import _sequential
    from sparring.poker.bots import maniac
    from sparring.poker.deal_generation import generate_deals

    held, _ = generate_deals(0, 150, n_seats=6, equity_trials=80, seed=4)

    def by_sprt(challenger, champion, *overrides):
        job = pipeline_config("retrain", *TINY, "retrain.test=sprt", *overrides)
        full = paired_edges(challenger, champion, held.equity, held.strength, 1.6, 1.1, 2)
        return _sequential(job, challenger, champion, held), full

    better, full = by_sprt(tight_aggressive(), calling_station(), "retrain.sprt.look=7")
    assert better.promote and better.sequential.verdict == "H1"
    used = better.deals
    assert 30 <= used < 150  # not before min_deals, and before the deals ran out
    assert better.mean == pytest.approx(full[:used].mean())
    assert better.sequential.fixed_deals > used
    assert better.metrics()["sprt_deals_saved"] == better.sequential.fixed_deals - used
    worse, _ = by_sprt(calling_station(), tight_aggressive())
    assert not worse.promote and worse.sequential.verdict == "H0"
    # a challenger that plays as the champion: no edge and no spread on any deal is H0 for
    # certain, as soon as a verdict may come (min_deals)
    same = by_sprt(maniac(), maniac())[0]
    assert same.sequential.verdict == "H0" and same.deals == 30 and not same.promote
    # hypotheses either side of the true edge, too close for the held-out deals to tell
    # apart: no verdict, every deal played, kept
    m = full.mean()
    close = by_sprt(
        tight_aggressive(),
        calling_station(),
        f"retrain.sprt.edge0={m - 0.5}",
        f"retrain.sprt.edge1={m + 0.5}",
    )[0]
    assert close.sequential.verdict == "none" and close.deals == 150 and not close.promote


def test_bad_sprt_settings_are_one_line():
    from tests.helpers.configs import config_error

    assert config_error("retrain", "retrain.test=bayes") == (
        "retrain.test=bayes is not allowed: expected one of fixed, sprt"
    )
    assert config_error("retrain", "retrain.sprt.edge1=-1") == (
        "retrain.sprt.edge1=-1 is not allowed: expected a number above edge0=0"
    )
    assert "retrain.sprt.alpha=0.5 is not allowed" in config_error(
        "retrain", "retrain.sprt.alpha=0.5"
    )
    assert "retrain.sprt.look=0 is not allowed" in config_error("retrain", "retrain.sprt.look=0")


def test_a_named_challenger_is_tested_instead_of_an_evolved_one(
    ray_session, pipeline_config, tmp_path
):
    """``retrain.challenger=<spec>``: the tight-aggressive baseline replaces a calling-station
    champion (registered as it is, nothing evolved); the champion named by its own alias is
    kept; an agent the registry cannot hold is one line naming what is allowed. The first
    retrain runs as a user runs it, a process of its own (in-process, this session's Ray hid
    that a named challenger's deal set needs a Ray the retrain never started)."""

    def overrides(rid, challenger):
        return (
            *TINY,
            "registry.model_name=named-challenger",
            f"retrain.id={rid}",
            f"retrain.challenger={challenger}",
            f"deals.root={tmp_path / 'deals'}",
            f"retrain.checkpoint_root={tmp_path / 'ck'}",
            f"league.cache_dir={tmp_path / 'league'}",
        )

    def cfg(rid, challenger):
        return pipeline_config("retrain", *overrides(rid, challenger))

    weak = cfg("day-1", "poker@tight_aggressive")
    registered(weak, calling_station(), "named-challenger")
    store = (f"tracking.uri={weak.tracking.uri}",
             f"tracking.artifact_root={weak.tracking.artifact_root}")  # fmt: skip
    proc = run_pipeline("retrain", *overrides("day-1", "poker@tight_aggressive"), *store,
                        cwd=tmp_path, timeout=900)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    client = MlflowClient(weak.tracking.uri)
    [run] = client.search_runs(
        [client.get_experiment_by_name("retrain").experiment_id],
        filter_string="tags.retrain_id = 'day-1' and tags.model_name = 'named-challenger'",
    )
    assert run.data.tags["decision"] == "promoted" and run.data.metrics["edge_low"] > 0
    chromosome, info, version = load_registered(client, "named-challenger")
    assert np.array_equal(chromosome, tight_aggressive())
    assert version == run.data.tags["new_version"]
    assert info["challenger"] == "poker@tight_aggressive"
    nested = f"tags.retrain_id = 'day-1' and tags.mlflow.parentRunId = '{run.info.run_id}'"
    runs = client.search_runs(  # (the session's store holds other tests' retrains too)
        [client.get_experiment_by_name("retrain").experiment_id], filter_string=nested
    )
    assert runs == []  # no nested evolve run
    same = retrain(cfg("day-2", "champion@champion"))
    assert same["decision"] == "kept" and same["edge"] == 0.0
    from tests.helpers.configs import config_error

    assert config_error("retrain", "retrain.challenger=random") == (
        "retrain.challenger=random is not allowed: expected a chromosome the registry can hold: "
        "champion@<alias|version> or poker@<baseline> (other agents are rated in the league: "
        "league.agents)"
    )
