"""league end to end: registry versions and baselines, MLflow record, version tags."""

from mlflow.tracking import MlflowClient

from sparring.champions.registry import log_champion, register
from sparring.pipelines.league import run
from sparring.poker.bots import calling_station, tight_aggressive
from tests.configs import config_error


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
    exp = client.create_experiment("league-seeds")
    for chromosome in (calling_station(), tight_aggressive()):
        source = client.create_run(exp).info.run_id
        log_champion(client, source, chromosome, {"table_size": 6})
        register(client, "league-test", source, "champion")
    out = run(cfg)
    league = out["league"]
    assert league.entrants == ["v1", "v2", "maniac", "tight_aggressive"]
    assert (league.played, league.cached) == (6, 0)
    m = out["metrics"]
    # v2 plays exactly like the tight_aggressive table: the same rating, both above v1
    assert m["rating/v2"] > m["rating/v1"]
    assert abs(m["rating/v2"] - m["rating/tight_aggressive"]) < 1e-6
    recorded = client.get_run(out["run_id"])
    assert recorded.data.metrics["pairs_played"] == 6
    assert recorded.data.metrics["edge/v1/v2"] < 0
    artifacts = {a.path for a in client.list_artifacts(out["run_id"])}
    assert {"league.txt", "league.json", "league_edges.png", "config.yaml"} <= artifacts
    for version in ("1", "2"):
        tags = client.get_model_version("league-test", version).tags
        assert tags["league_rating"].startswith(f"{m[f'rating/v{version}']:+.0f} [")
        assert tags["league_run"] == out["run_id"]
    again = run(cfg)  # every pair is in the cache now
    assert (again["league"].played, again["league"].cached) == (0, 6)


def test_a_league_without_entrants_or_with_an_unknown_baseline_is_refused():
    assert "league.baselines" in config_error("league", "league.baselines=[shark]")
    assert "registry, baselines or runs" in config_error(
        "league", "league.registry=false", "league.baselines=[]"
    )
