"""league end to end: registry versions, baselines and agent specs, MLflow record, version
tags."""

import sys
from pathlib import Path

from mlflow.tracking import MlflowClient

from sparring.champions.registry import log_champion, register
from sparring.pipelines.league import run
from sparring.poker.bots import calling_station, tight_aggressive
from sparring.runtime.config import metric_name
from sparring.runtime.tracking.runs import experiment_id
from tests.helpers.configs import config_error


def test_versions_and_baselines_are_rated_and_tagged(ray_session, pipeline_config, tmp_path):
    cfg = pipeline_config(
        "league",
        "table_size=6",
        "deals.heldout=60",
        "deals.equity_trials=60",
        "deals.shard_size=30",
        f"deals.root={tmp_path / 'deals'}",
        "registry.model_name=league-test",
        "league.baselines=[maniac,tight_aggressive]",
        "league.bootstrap=30",
        f"league.cache_dir={tmp_path / 'cache'}",
    )
    client = MlflowClient(cfg.tracking.uri)
    exp = experiment_id(client, "league-seeds", cfg.tracking.artifact_root)
    for chromosome in (calling_station(), tight_aggressive()):
        source = client.create_run(exp).info.run_id
        log_champion(client, source, chromosome, {"table_size": 6})
        register(client, "league-test", source, "champion")
    out = run(cfg)
    league = out["league"]
    # v2 plays exactly like the tight_aggressive table: the same agent, entered once (as v2)
    assert league.entrants == ["v1", "v2", "maniac"]
    assert league.same_as == {"tight_aggressive": "v2"}
    assert "league: tight_aggressive plays exactly as v2" in league.text
    assert (league.played, league.cached) == (3, 0)
    m = out["metrics"]
    assert m["rating/v2"] > m["rating/v1"] and m["chips/v2"] > m["chips/v1"]
    assert "rating/tight_aggressive" not in m
    assert league.rating_of("tight_aggressive") == league.rating_of("v2")
    recorded = client.get_run(out["run_id"])
    assert recorded.data.metrics["pairs_played"] == 3
    assert recorded.data.metrics["edge/v1/v2"] < 0
    assert recorded.data.metrics["chips/v2"] == m["chips/v2"]
    artifacts = {a.path for a in client.list_artifacts(out["run_id"])}
    assert {"league.txt", "league.json", "league_edges.png", "config.yaml"} <= artifacts
    for version in ("1", "2"):
        tags = client.get_model_version("league-test", version).tags
        assert tags["league_rating"].startswith(f"{m[f'rating/v{version}']:+.0f} [")
        assert tags["league_chips"].startswith(f"{m[f'chips/v{version}']:+.1f} bb/100 [")
        assert tags["league_run"] == out["run_id"]
    again = run(cfg)  # every pair is in the cache now
    assert (again["league"].played, again["league"].cached) == (0, 3)


RANDOM_BOT = Path(__file__).resolve().parents[2] / "examples" / "agents" / "random_bot.py"


class Crasher:
    """An in-process agent whose every decision raises."""

    def act(self, observation, legal):
        raise RuntimeError("boom")


def test_agent_specs_enter_the_league(ray_session, pipeline_config, tmp_path, capsys):
    """A registered champion and a baseline named by spec are the chromosomes they are: both
    play exactly as v1, so each is dropped as v1's duplicate before playing (one line each) and
    rated as v1; an outside program and an in-process agent play through the game protocol on
    the same held-out deals; an agent that fails forfeits its hands at the most a hand costs,
    said in one line per pair; a second run reads every pair from the cache, the program's
    included."""
    bot = f"cmd:{sys.executable} {RANDOM_BOT}"
    crasher = "py:tests.pipelines.test_league_pipeline:Crasher"
    cfg = pipeline_config(
        "league",
        "table_size=4",
        "deals.heldout=16",
        "deals.equity_trials=60",
        f"deals.root={tmp_path / 'deals'}",
        "registry.model_name=league-agents",
        "league.baselines=[calling_station]",
        f"league.agents=[champion@champion,poker@tight_aggressive,'{bot}',{crasher}]",
        "league.bootstrap=30",
        f"league.cache_dir={tmp_path / 'cache'}",
    )
    client = MlflowClient(cfg.tracking.uri)
    exp = experiment_id(client, "league-agents", cfg.tracking.artifact_root)
    source = client.create_run(exp).info.run_id
    log_champion(client, source, tight_aggressive(), {"table_size": 4})
    register(client, "league-agents", source, "champion")
    out = run(cfg)
    league = out["league"]
    names = ["v1", "calling_station", bot, crasher]
    assert league.entrants == names
    assert league.same_as == {"champion@champion": "v1", "poker@tight_aggressive": "v1"}
    keys = ["v1", "calling_station", "random_bot.py",
            "py_tests.pipelines.test_league_pipeline_Crasher"]  # fmt: skip
    m = {n: out["metrics"][metric_name("rating", k)] for n, k in zip(names, keys, strict=True)}
    for same in ("champion@champion", "poker@tight_aggressive"):
        assert league.rating_of(same) == league.rating_of("v1")
    edges = league.edges  # (i, j): i's edge over j, its 95% interval
    # the random program loses to the tight-aggressive champion; the crasher to everyone
    assert edges[(0, 2)][0] > 0 and m["v1"] > m[bot]
    assert all(edges[(i, 3)][1] > 0 for i in range(3))  # every interval above zero
    assert min(m.values()) == m[crasher] and league.ranking[-1] == crasher
    recorded = client.get_run(out["run_id"]).data.metrics
    assert recorded["rating/py_tests.pipelines.test_league_pipeline_Crasher"] == m[crasher]
    said = capsys.readouterr().out
    for same in ("champion@champion", "poker@tight_aggressive"):
        assert said.count(f"league: {same} plays exactly as v1 (the same agent)") == 1
    assert said.count(f"league: {crasher} forfeited") == 3  # one line per pair
    assert "(first: crash: " in said and "withdrawn after 3 in a row" in said
    again = run(cfg)  # a pair with forfeits is not kept: played again, said again
    assert (again["league"].played, again["league"].cached) == (3, 3)
    assert capsys.readouterr().out.count(f"league: {crasher} forfeited") == 3


def test_a_league_without_entrants_or_with_an_unknown_baseline_is_refused():
    assert "league.baselines" in config_error("league", "league.baselines=[shark]")
    assert "registry, baselines, runs or agents" in config_error(
        "league", "league.registry=false", "league.baselines=[]"
    )
    said = config_error("league", "league.agents=[mus@default]")
    assert said == (
        "league.agents=mus@default is not allowed: expected an agent spec that plays poker"
    )
    assert "no such program" in config_error("league", "league.agents=[cmd:no-such-bot]")


def test_a_run_without_a_champion_is_refused_before_any_deal(
    ray_session, pipeline_config, tmp_path
):
    """``league.runs`` names an MLflow run: one with no champion/ (or none at all) is refused
    in one line before the held-out deals are dealt (minutes, at the defaults); a run with a
    champion passes the same check (the control)."""
    import pytest

    from sparring.champions.league import check_runs
    from sparring.config.evolve import LeagueSection
    from sparring.runtime.errors import UsageError

    deals = tmp_path / "deals"
    cfg = pipeline_config(
        "league",
        "table_size=4",
        "deals.heldout=16",
        "deals.equity_trials=60",
        f"deals.root={deals}",
        "league.registry=false",
        "league.baselines=[calling_station]",
        f"league.cache_dir={tmp_path / 'cache'}",
    )
    client = MlflowClient(cfg.tracking.uri)
    exp = experiment_id(client, "league-runs", cfg.tracking.artifact_root)
    empty = client.create_run(exp).info.run_id
    champion = client.create_run(exp).info.run_id
    log_champion(client, champion, tight_aggressive(), {"table_size": 4})
    check_runs(client, LeagueSection(runs=[champion]))  # control: a champion's run passes
    cfg.league.runs = [champion, empty]
    with pytest.raises(UsageError, match=f"^league.runs: run {empty} has no champion/ artifact"):
        run(cfg)
    assert not deals.exists() or not any(deals.rglob("*.parquet"))
