"""The terminal game and the flagbots_bench pipeline on a tiny scale."""

import pytest
from mlflow.tracking import MlflowClient

from sparring.pipelines.flagbots_bench import run
from tests.helpers.commands import run_cli
from tests.helpers.configs import config_error


def test_terminal_game_refuses_illegal_moves_and_replies():
    proc = run_cli(
        "play", "flagbots", "--depth", "2", input="c2-c4\nzz\nd2-d3\nquit\n", timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "illegal: 'c2-c4': a robot moves one step to a neighbouring cell" in out
    assert "illegal: 'zz': write a step like c2-d3" in out
    assert "engine plays " in out and "depth 2" in out


def test_pipeline_counts_nodes_and_deeper_players_score_more(
    ray_session, pipeline_config, tmp_path
):
    cfg = pipeline_config(
        "flagbots_bench",
        "searchers=[minimax,alphabeta,full]",
        "depths=[1,2,3]",
        "positions=[start]",
        "time_s=0.2",
        "match.seeds=3",
        f"output_dir={tmp_path}",
    )
    out = run(cfg)
    by = {(r["searcher"], r["depth"]): r for r in out["nodes"]}
    # alpha-beta never examines more leaves than minimax; the full searcher is near minimal
    for d in (1, 2, 3):
        assert by["alphabeta", d]["leaves"] <= by["minimax", d]["leaves"]
    assert by["minimax", 2]["leaves"] == 2304 and by["minimax", 2]["ratio_to_minimal"] > 20
    assert by["full", 3]["ratio_to_minimal"] < by["alphabeta", 3]["ratio_to_minimal"]
    scores = {r["searcher"]: r["score"] for r in out["standings"]}
    assert scores["d3"] > scores["d1"], out["standings"]
    assert len(out["games"]) == 3 * 2 * 3  # d1, d2, d3: 3 pairs x 2 colours x 3 seeds
    metrics = MlflowClient(cfg.tracking.uri).get_run(out["run_id"]).data.metrics
    assert "elo/d3" in metrics and "start/full/d3/nodes" in metrics
    assert (tmp_path / "nodes.parquet").exists() and (tmp_path / "games.parquet").exists()


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("searchers=[minimax,deep_blue]", "searchers[1]=deep_blue is not allowed: expected one"),
        ("match.players.d2=full@x", "match.players.d2=full@x is not allowed: expected searcher@"),
        ("time_s=0", "time_s=0 is not allowed"),
        ("match.players.d2=full@0ms", "match.players.d2=full@0ms is not allowed: expected"),
        ("match.challenger.spec=full@", "match.challenger.spec=full@ is not allowed: expected"),
        ("match.challenger.memory_mb=0", "match.challenger.memory_mb=0 is not allowed"),
        ("match.challenger.aspiration=-1", "match.challenger.aspiration=-1 is not allowed"),
    ],
)
def test_bad_config(override, message):
    assert message in config_error("flagbots_bench", override)


def test_players_take_a_depth_or_a_time_budget_and_the_challenger_its_settings(pipeline_config):
    from sparring.config.flagbots_bench import Player, parse_player

    assert parse_player("p", "full@3") == Player("full", 3)
    assert parse_player("p", "id_tt@250ms") == Player("id_tt", None, 0.25)
    job = pipeline_config(
        "flagbots_bench",
        "match.challenger.spec=full@40ms",
        "match.challenger.aspiration=25",
        "match.challenger.memory_mb=8",
    )
    players = job.match.parsed
    assert list(players) == ["d1", "d2", "d3", "challenger"]
    engine = players["challenger"].engine("challenger")
    assert (engine.name, engine.aspiration, engine.memory_mb, engine.time_s) == (
        "challenger",
        25,
        8,
        0.04,
    )
    default = players["d2"].engine("d2")  # the others keep the full searcher's own settings
    assert (default.aspiration, default.memory_mb, players["d2"].depth) == (200, 100, 2)
