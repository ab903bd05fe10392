"""Any OpenSpiel game in the arena, and OpenSpiel's bots as agents (#50): ``game=openspiel:<game>``
is a game of the registry's ``openspiel`` family, ``openspiel:mcts:...`` an agent spec. MCTS
beats a random player at tic-tac-toe with its score's interval above 1/2, and an SPRT of the two
decides H1; an unknown OpenSpiel game and MCTS in a game of imperfect information are refused
in one line before any work. Every step runs as a separate process, as a user's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from tests.helpers.commands import run_pipeline

MCTS = "openspiel:mcts:simulations=50"


def _contest(tmp_path: Path, *args: str) -> dict:
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    # a fixed store key (runtime.storage.keys): the same openings every run, one contest
    (tmp_path / "arena").mkdir(exist_ok=True)
    (tmp_path / "arena" / ".key").write_bytes(bytes(range(32)))
    done = run_pipeline("arena", "game=openspiel:tic_tac_toe", *args,
                        f"output_dir={tmp_path / 'arena'}", f"tracking.uri={uri}", cwd=tmp_path,
                        timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    client = MlflowClient(uri)
    runs = client.search_runs([client.get_experiment_by_name("arena").experiment_id],
                              order_by=["attributes.start_time DESC"])  # fmt: skip
    run = runs[0]
    out = tmp_path / f"artifacts-{len(runs)}"
    out.mkdir()
    return {
        "metrics": run.data.metrics,
        "tags": run.data.tags,
        "games.txt": Path(client.download_artifacts(run.info.run_id, "games.txt", str(out)))
        .read_text(),
        "games": [json.loads(line) for line in Path(client.download_artifacts(
            run.info.run_id, "games.jsonl", str(out))).read_text().splitlines()],
        "stdout": done.stdout,
    }  # fmt: skip


def test_mcts_beats_random_at_tic_tac_toe_and_the_sprt_says_so(tmp_path):
    gauntlet = _contest(tmp_path, f'agent="{MCTS}"', "field=[random]", "units=12", "block=6")
    pair = "pair/openspiel_mcts_simulations_50/random"
    assert gauntlet["metrics"][f"{pair}/units"] == 12
    assert gauntlet["metrics"][f"{pair}/score_low"] > 0.5, gauntlet["stdout"]
    assert gauntlet["tags"]["arena_game"] == "openspiel:tic_tac_toe"
    games = gauntlet["games"]
    assert len(games) == 24 and all(g["forfeit_seat"] is None for g in games)
    assert all(len(g["opening"]) == 2 for g in games)  # a deterministic game: 2 random plies
    # the record writes OpenSpiel's moves (tic-tac-toe's x(1,1)), the bot by its short name
    assert "seat 0 (openspiel_mcts_simulations=50): x(" in gauntlet["games.txt"]

    sprt = _contest(tmp_path, "kind=sprt", f'agent="{MCTS}"', "field=[random]", "units=10",
                    "block=5", "sprt.elo1=200")  # fmt: skip
    assert sprt["tags"]["sprt_decision"] == "H1", sprt["stdout"]


def test_a_round_robin_of_openspiel_bots_rates_them_with_intervals(tmp_path):
    """A league of OpenSpiel's bots and Sparring's random player in kuhn_poker (chance and
    imperfect information) and tic-tac-toe: every pair plays, the ratings (Elo scale, mean 0)
    come with intervals that hold them, and the strong search is rated above random play."""
    league = _contest(tmp_path, "kind=round_robin", "agent=null", "units=8", "block=4",
                      f'field=["{MCTS}","openspiel:mcts:simulations=2",random]')  # fmt: skip
    ratings = {k.removeprefix("rating/"): v for k, v in league["metrics"].items()
               if k.startswith("rating/") and not k.endswith(("_low", "_high"))}  # fmt: skip
    assert len(ratings) == 3, sorted(league["metrics"])
    assert abs(sum(ratings.values())) < 1e-6  # mean 0
    for name, value in ratings.items():
        m = league["metrics"]
        assert m[f"rating/{name}_low"] <= value <= m[f"rating/{name}_high"], name
    strong = next(v for k, v in ratings.items() if "simulations_50" in k)
    assert strong > ratings["random"], ratings
    assert len(league["games"]) == 3 * 8 * 2  # three pairs, each unit a game on each side

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    done = run_pipeline("arena", "game=openspiel:kuhn_poker", "kind=round_robin", "agent=null",
                        "field=[openspiel:uniform_random,random,first]", "units=20", "block=10",
                        f"output_dir={tmp_path / 'arena'}", f"tracking.uri={uri}", cwd=tmp_path,
                        timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "kuhn_poker" in done.stdout and "rating" in done.stdout.lower(), done.stdout


@pytest.mark.parametrize(
    "overrides, says",
    [
        (["game=openspiel:no_such_game"],
         "error: game=openspiel:no_such_game is not allowed: expected a registered game (poker, "
         "mus, flagbots, eleusis) or openspiel:<game>; OpenSpiel has no game 'no_such_game'"),
        (["game=openspiel:kuhn_poker", "agent=openspiel:mcts", "field=[random]"],
         "error: agent=openspiel:mcts is not allowed: expected an agent that can play "
         "openspiel:kuhn_poker (openspiel:mcts: MCTS searches the whole state: a game of "
         "perfect information"),
        (["game=flagbots", "agent=openspiel:uniform_random"],
         "an agent of flagbots (openspiel:uniform_random plays openspiel:<game>)"),
    ],
)  # fmt: skip
def test_a_game_or_bot_that_does_not_fit_is_one_line_before_any_work(tmp_path, overrides, says):
    done = run_pipeline("arena", *overrides, f"output_dir={tmp_path / 'arena'}",
                        f"tracking.uri=sqlite:///{tmp_path / 'mlflow.db'}", cwd=tmp_path,
                        timeout=120)  # fmt: skip
    err = done.stderr.strip()
    assert done.returncode == 2, err[-2000:]
    assert says in err and "\n" not in err, err
    assert not (tmp_path / "mlflow.db").exists() and not (tmp_path / "arena").exists()
