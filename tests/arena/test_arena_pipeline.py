"""The arena pipeline on the session's Ray: the same seed gives the same games however the units
are cut into tasks; a contest killed with kill -9 and rerun plays only the missing blocks and
ends with the uninterrupted result; a damaged block is played again; an SPRT decides."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from sparring.champions.registry import log_champion, register
from sparring.pipelines import arena
from sparring.poker.bots import maniac, tight_aggressive
from sparring.runtime.errors import ConfigError
from tests.helpers.commands import ROOT, run_pipeline, start_pipeline, wait_while_running

BOT = f"cmd:{sys.executable} {ROOT / 'examples' / 'agents' / 'random_bot.py'}"
SHELL_BOT = f"cmd:sh {ROOT / 'examples' / 'agents' / 'first_bot.sh'}"
pytestmark = pytest.mark.usefixtures("ray_session")


def games_of(contest: Path) -> list[dict]:
    """Every game of a contest's blocks (with its pair and unit), in order, without timing."""
    games = []
    for block in sorted((contest / "blocks").glob("*.json")):
        result = json.loads(block.read_text())["result"]
        pair = [result["block"]["a"], result["block"]["b"]]
        for unit in result["units"]:
            for game in unit["games"]:
                kept = {k: v for k, v in game.items() if k != "seconds"}
                games.append(kept | {"pair": pair, "u": unit["unit"], "opening": unit["opening"]})
    return sorted(games, key=lambda g: (g["pair"], g["u"], g["seating"]))


def test_the_same_seed_gives_the_same_games_for_any_cut_into_tasks(pipeline_config, tmp_path):
    field = f'field=[first,"{SHELL_BOT}"]'
    runs = []
    for block in (1, 4):  # 4 tasks at once against one task per pair
        job = pipeline_config(
            "arena", f"agent={BOT}", field, "units=4", f"block={block}", "seed=3",
            f"output_dir={tmp_path / 'store'}",
        )  # fmt: skip
        runs.append(arena.run(job))
    one, many = runs
    assert one["pairs"] == many["pairs"]
    for key in one["metrics"]:
        if key.startswith(("pair/", "rating/", "games", "forfeits", "decisions")):
            assert one["metrics"][key] == many["metrics"][key], key
    a, b = (games_of(r["contest"].local_path()) for r in runs)
    assert a == b and len(a) == 2 * 4 * 2  # 2 pairs x 4 units x 2 games (sides swapped)
    assert all(g["forfeit_seat"] is None for g in a)
    # unit u: its two games with the sides swapped, from one opening, the same for every pair
    units: dict[tuple, list[dict]] = {}
    for g in a:
        units.setdefault((*g["pair"], g["u"]), []).append(g)
    for games in units.values():
        assert sorted(tuple(g["seating"]) for g in games) == [("A", "B"), ("B", "A")]
    openings = {u: {tuple(g["opening"]) for g in a if g["u"] == u} for u in range(4)}
    assert all(len(o) == 1 for o in openings.values())
    assert len({o.pop() for o in openings.values()}) == 4  # and a new one for every unit
    assert all(len(g["opening"]) == 2 for g in a)  # FlagBots: 2 random plies
    records_are_the_games(one["run_id"], pipeline_config("arena").tracking.uri, tmp_path)


def records_are_the_games(run_id: str, uri: str, tmp_path: Path) -> None:
    """``games.txt`` replays ``games.jsonl``: one record per game, its start after the
    opening, one line per decision whose move (in the engine's notation) reads back as the
    recorded action, and the returns."""
    from sparring.flagbots.game import Position
    from sparring.game_api import get

    client = MlflowClient(uri)
    jsonl = Path(client.download_artifacts(run_id, "games.jsonl", str(tmp_path))).read_text()
    rows = [json.loads(line) for line in jsonl.splitlines()]
    text = Path(client.download_artifacts(run_id, "games.txt", str(tmp_path))).read_text()
    records = text.split("\n\n")
    assert len(records) == len(rows)
    for number, (row, record) in enumerate(zip(rows, records, strict=True)):
        lines = record.strip().splitlines()
        assert lines[0] == f"game {number}: unit {row['unit']}, seed {row['seed']}, flagbots"
        state = get("flagbots").new_state(row["seed"])
        for action in row["opening"]:
            state.apply_action(action)
        assert lines[1].startswith(f"  start {state.to_text()} (after ")
        moves = lines[2:-1]
        assert len(moves) == len(row["actions"]) == row["decisions"]
        for ply, (line, action) in enumerate(zip(moves, row["actions"], strict=True), 1):
            seat = state.current_player()
            head, _, move = line.partition("): ")
            assert head.startswith(f"  {ply}. seat {seat} (")
            assert Position.from_text(state.to_text()).parse_move(move) == action
            state.apply_action(action)
        assert lines[-1] == f"  end: returns {[int(r) for r in row['returns']]}"


def test_a_damaged_block_is_played_again_and_said(pipeline_config, tmp_path, capsys):
    args = ["agent=random", "field=[first]", "units=2", "block=1", f"output_dir={tmp_path}"]
    first = arena.run(pipeline_config("arena", *args))
    contest = first["contest"].local_path()
    [damaged, _] = sorted((contest / "blocks").glob("*.json"))
    damaged.write_text(damaged.read_text().replace('"score": ', '"score": 1', 1))
    capsys.readouterr()
    again = arena.run(pipeline_config("arena", *args))
    out = capsys.readouterr().out
    assert "damaged (not sealed with this store's key); played again" in out
    assert "1 of 2 blocks" in out
    assert again["pairs"] == first["pairs"]
    assert games_of(contest) == games_of(contest)  # (and the file is whole again)
    json.loads(damaged.read_text())


def test_an_sprt_on_a_large_edge_accepts_h1_early(pipeline_config, tmp_path):
    job = pipeline_config(
        "arena", "game=mus", "kind=sprt", f"agent={BOT}", "field=[first]", "block=4",
        "sprt.elo1=100", "sprt.max_units=200", f"output_dir={tmp_path}",
    )  # fmt: skip
    done = arena.run(job)
    units = done["metrics"]["sprt_units"]
    assert done["decision"] in ("H1", "H0") and 2 <= units < 200, done["metrics"]
    test = job.sprt.test()
    scores = arena.pair_scores(
        [json.loads(p.read_text())["result"] for p in (tmp_path).rglob("blocks/*.json")],
        job.agent,
        "first",
    )
    assert test.decide(scores) == (done["decision"], units)  # the units in order decide


def test_an_sprt_accepts_a_champion_over_the_calling_station_before_a_fixed_test_would(
    pipeline_config, tmp_path
):
    """A known large edge in poker (the tight-aggressive table against the calling station):
    H1, in fewer units than the fixed-size test at the same error rates and the same units'
    variance needs."""
    job = pipeline_config(
        "arena", "game=poker", "kind=sprt", "agent=poker@tight_aggressive",
        "field=[poker@calling_station]", "sprt.elo1=50", "sprt.max_units=2000", "units=50",
        "block=25", f"output_dir={tmp_path}",
    )  # fmt: skip
    # The store's key decides the deals (runtime.storage.keys): a fixed one, so the test is one
    # contest and not a draw of the SPRT's own error rate (with a new key each run it accepted
    # H0 in about one run in three: a true edge near +70 Elo against elo1=50).
    (tmp_path / ".key").write_bytes(bytes(range(32)))
    done = arena.run(job)
    units = done["metrics"]["sprt_units"]
    scores = arena.pair_scores(
        [json.loads(p.read_text())["result"] for p in tmp_path.rglob("blocks/*.json")],
        "poker@tight_aggressive",
        "poker@calling_station",
    )
    assert done["decision"] == "H1"
    assert units < job.sprt.test().fixed_units(float(scores[:units].var(ddof=1)))


def test_a_contest_killed_with_kill_9_reruns_only_the_missing_blocks(pipeline_config, tmp_path):
    slow = tmp_path / "slow_bot.py"  # the example bot, a little slower (the kill lands mid-way)
    slow.write_text(
        (ROOT / "examples" / "agents" / "random_bot.py")
        .read_text()
        .replace("import sys\n", "import sys\nimport time\n")
        .replace('"act":', '"act":\n        time.sleep(0.02)')
    )
    uri = f"sqlite:///{tmp_path / 'm.db'}"
    contest = [f"agent=cmd:{sys.executable} {slow}", "field=[first]", "units=12", "block=1",
               "seed=5"]  # fmt: skip
    args = [*contest, f"tracking.uri={uri}"]
    env = {"RAY_USAGE_STATS_ENABLED": "0"}
    killed = tmp_path / "killed"
    first = start_pipeline("arena", *args, f"output_dir={killed}", cwd=tmp_path, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    try:
        wait_while_running(
            first, lambda: len(list(killed.rglob("blocks/*.json"))) >= 3, "third block finished"
        )
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    before = len(list(killed.rglob("blocks/*.json")))
    assert 3 <= before < 12
    second = run_pipeline("arena", *args, f"output_dir={killed}", cwd=tmp_path, env=env,
                          timeout=600)  # fmt: skip
    assert second.returncode == 0, second.stderr[-3000:]
    assert f"{before} of 12 blocks already played" in second.stdout
    # the uninterrupted contest (in this process: the same games in another store given the
    # same key, runtime.storage.keys: the key is what replays a contest's chance elsewhere)
    (tmp_path / "clean").mkdir()
    shutil.copyfile(killed / ".key", tmp_path / "clean" / ".key")
    clean = arena.run(pipeline_config("arena", *contest, f"output_dir={tmp_path / 'clean'}"))
    [resumed] = [d for d in killed.iterdir() if d.is_dir()]
    assert games_of(resumed) == games_of(clean["contest"].local_path())
    client = MlflowClient(uri)
    runs = client.search_runs([client.get_experiment_by_name("arena").experiment_id])
    (finished,) = [r for r in runs if r.info.status == "FINISHED"]
    pairs = {k: v for k, v in finished.data.metrics.items() if k.startswith("pair/")}
    assert pairs == {k: v for k, v in clean["metrics"].items() if k.startswith("pair/")}
    assert finished.data.params["digest/0"] == arena.parse(contest[0][6:]).digest()


def _register(
    uri: str, artifacts: Path, model: str, genes, alias: str | None, call_factor: float = 1.0
) -> str:
    """A champion version of ``model`` with ``genes`` (a run holding its ``champion/``)."""
    client = MlflowClient(uri)
    name = f"seed-{model}"
    found = client.get_experiment_by_name(name)
    exp = found.experiment_id if found else client.create_experiment(name, str(artifacts))
    run = client.create_run(exp)
    info = {"table_size": 2, "raise_factor": 1.4, "call_factor": call_factor}
    log_champion(client, run.info.run_id, genes, info)
    client.set_terminated(run.info.run_id)
    return register(client, model, run.info.run_id, alias)


def test_champions_from_the_registry_play_poker_alike_for_any_cut_into_tasks(
    pipeline_config, tmp_path
):
    """The example bot against two registered champions (by version and by alias): the same
    games whether each unit is its own task or a pair's units are one, the versions and the
    chromosomes' digests recorded; a champion the registry lacks is one line naming what it
    has."""
    model = f"arena-{tmp_path.name}"
    job = pipeline_config("arena", f"model_name={model}")
    first = _register(job.tracking.uri, tmp_path / "art", model, tight_aggressive(), None)
    second = _register(job.tracking.uri, tmp_path / "art", model, maniac(), "champion")
    assert (first, second) == ("1", "2")
    field = "field=[champion@1,champion@champion]"
    runs = []
    for block in (1, 3):
        job = pipeline_config(
            "arena", "game=poker", f"agent={BOT}", field, "units=3", f"block={block}",
            f"model_name={model}", f"output_dir={tmp_path / 'store'}",
        )  # fmt: skip
        runs.append(arena.run(job))
    one, many = runs
    assert one["pairs"] == many["pairs"]
    a, b = (games_of(r["contest"].local_path()) for r in runs)
    assert a == b and len(a) == 2 * 3 * 2  # 2 pairs x 3 units x 2 hands (seats swapped)
    assert all(g["forfeit_seat"] is None and g["decisions"] >= 1 for g in a)
    params = MlflowClient(job.tracking.uri).get_run(one["run_id"]).data.params
    assert (params["version/1"], params["version/2"]) == ("1", "2")
    again = MlflowClient(job.tracking.uri).get_run(many["run_id"]).data.params
    assert params["digest/1"] != params["digest/2"] and len(params["digest/1"]) == 16
    assert (again["digest/1"], again["digest/2"]) == (params["digest/1"], params["digest/2"])
    # a version with the same genes but other preflop factors plays otherwise: another digest
    third = _register(
        job.tracking.uri, tmp_path / "art", model, tight_aggressive(), None, call_factor=1.2
    )
    same_genes = pipeline_config(
        "arena", "game=poker", "agent=champion@1", f"field=[champion@{third}]",
        f"model_name={model}",
    )  # fmt: skip
    digests = {k: v["digest"] for k, v in arena._champions(same_genes).items()}
    assert digests["champion@1"] == params["digest/1"] != digests[f"champion@{third}"]
    missing = pipeline_config(
        "arena", "game=poker", "agent=champion@9", "field=[first]", f"model_name={model}",
        f"output_dir={tmp_path / 'missing'}",
    )  # fmt: skip
    with pytest.raises(ConfigError) as refused:
        arena.run(missing)
    assert str(refused.value) == (
        f"agent=champion@9 is not allowed: expected a version or alias of {model} in "
        f"{job.tracking.uri} (versions 1, 2, 3; aliases champion)"
    )
    assert not (tmp_path / "missing").exists()  # refused before any block


def test_an_acpc_bot_in_c_plays_a_gauntlet_against_two_champions(pipeline_config, tmp_path):
    """tests/arena/acpc_bot.c, compiled here with the system compiler, as an ``acpc:`` entrant
    under the sandbox's limits (100 MB, 2 s a move, its own network namespace where allowed):
    every hand played to its end, none forfeited, the program's digest recorded."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler on this machine")
    binary = tmp_path / "acpc_bot"
    source = Path(__file__).with_name("acpc_bot.c")
    subprocess.run([compiler, "-O2", "-o", str(binary), str(source)], check=True, timeout=120)
    model = f"arena-{tmp_path.name}"
    job = pipeline_config("arena", f"model_name={model}")
    _register(job.tracking.uri, tmp_path / "art", model, tight_aggressive(), None)
    _register(job.tracking.uri, tmp_path / "art", model, maniac(), "champion")
    job = pipeline_config(
        "arena", "game=poker", f"agent=acpc:{binary}", "field=[champion@1,champion@champion]",
        "units=4", "block=2", f"model_name={model}", f"output_dir={tmp_path / 'out'}",
    )  # fmt: skip
    assert job.limits.memory_mb == 100 and job.limits.move_s == 2.0
    result = arena.run(job)
    games = games_of(result["contest"].local_path())
    assert len(games) == 2 * 4 * 2 and all(g["forfeit_seat"] is None for g in games)
    assert all(g["decisions"] >= 1 for g in games)
    assert sum(g["decisions"] for g in games) > 3 * len(games)  # most hands go past the blinds
    params = MlflowClient(job.tracking.uri).get_run(result["run_id"]).data.params
    assert params["digest/0"] == arena.parse(f"acpc:{binary}").digest()


def test_a_ten_seat_duplicate_block_with_an_outside_seat_is_the_same_for_any_cut(
    pipeline_config, tmp_path
):
    """At ``seats=10`` a unit is one deal played ten times, the JSON-lines bot in each seat
    once and nine baseline chromosomes in the others; 1 or 2 units per task give the same
    hands."""
    runs = []
    for block in (1, 2):
        job = pipeline_config(
            "arena", "game=poker", "seats=10", f"agent={BOT}", "field=[poker@maniac]",
            "units=2", f"block={block}", "seed=5", f"output_dir={tmp_path / 'store'}",
        )  # fmt: skip
        runs.append(arena.run(job))
    a, b = (games_of(r["contest"].local_path()) for r in runs)
    assert a == b and len(a) == 2 * 10
    for unit in (0, 1):
        seatings = [g["seating"] for g in a if g["u"] == unit]
        assert sorted(s.index("A") for s in seatings) == list(range(10))
        assert all(s.count("A") == 1 and len(s) == 10 for s in seatings)
    assert all(g["forfeit_seat"] is None for g in a)
    assert runs[0]["pairs"] == runs[1]["pairs"]
    # the hand histories: one ACPC log line per hand, in the order of games.jsonl
    client = MlflowClient(job.tracking.uri)
    run_id = runs[1]["run_id"]
    hands = Path(client.download_artifacts(run_id, "hands.log", str(tmp_path))).read_text()
    logged = [json.loads(x) for x in
              Path(client.download_artifacts(run_id, "games.jsonl", str(tmp_path))).read_text()
              .splitlines()]  # fmt: skip
    lines = hands.splitlines()
    assert len(lines) == len(logged) == 20
    for number, (line, game) in enumerate(zip(lines, logged, strict=True)):
        head, hand, betting, _cards, values, names = line.split(":")
        assert (head, int(hand)) == ("STATE", number)
        assert betting.replace("/", "") == "".join({"fold": "f", "call": "c", "raise": "r"}[w]
                                                   for w in game["actions"])  # fmt: skip
        numbers = [float(v) for v in values.split("|")]
        assert abs(sum(numbers)) < 1e-9 and numbers == pytest.approx(game["returns"])
        assert names.split("|")[game["seating"].index("A")] == "random_bot.py"


@pytest.mark.parametrize(("mode", "says"), [("exit", "exit status 3"), ("badversion", "HELLO")])
def test_an_acpc_program_that_cannot_start_is_one_line_before_any_game(
    pipeline_config, tmp_path, mode, says
):
    bots = Path(__file__).with_name("acpc_bots.py")
    job = pipeline_config(
        "arena", "game=poker", f"agent=acpc:{sys.executable} {bots} {mode}",
        "field=[poker@maniac]", "units=2", f"output_dir={tmp_path}",
    )  # fmt: skip
    with pytest.raises(ConfigError) as error:
        arena.run(job)
    message = str(error.value)
    assert "sends VERSION:2.0.0" in message and says in message and "\n" not in message
    assert not any(tmp_path.iterdir())  # nothing played, nothing written


def test_two_acpc_programs_ending_alike_are_two_entrants_and_invalid_actions_are_counted(
    pipeline_config, tmp_path
):
    """#46: ``acpc:... folder a.game`` and ``acpc:... caller a.game`` (both ``a.game`` before)
    get a name, a rating and metric keys each; the folder's folds with nothing to call are
    counted per seat in ``games.jsonl`` and in total in ``invalid_actions/<name>``."""
    bots = Path(__file__).with_name("acpc_bots.py")
    folder = f"acpc:{sys.executable} {bots} folder a.game"
    caller = f"acpc:{sys.executable} {bots} caller a.game"
    job = pipeline_config(
        "arena", "game=poker", f"agent='{folder}'", f"field=['{caller}',poker@maniac]",
        "units=2", "block=2", f"output_dir={tmp_path / 'out'}",
    )  # fmt: skip
    result = arena.run(job)
    metrics = result["metrics"]
    for name in ("folder a.game", "caller a.game", "poker_maniac"):  # (@: not in a key)
        assert f"rating/{name}" in metrics
    assert "pair/folder a.game/caller a.game/score" in metrics
    client = MlflowClient(job.tracking.uri)
    jsonl = client.download_artifacts(result["run_id"], "games.jsonl", str(tmp_path))
    rows = [json.loads(line) for line in Path(jsonl).read_text().splitlines()]
    sent = {spec: 0 for spec in (folder, caller, "poker@maniac")}
    for row in rows:
        assert row["forfeit_seat"] is None and len(row["invalid"]) == len(row["seats"])
        for spec, count in zip(row["seats"], row["invalid"], strict=True):
            sent[spec] += count
    # against the caller, the big blind's fold is invalid every hand it has that seat
    assert sent[folder] >= 2 and sent[caller] == sent["poker@maniac"] == 0
    assert metrics["invalid_actions/folder a.game"] == sent[folder]
    assert metrics["invalid_actions/caller a.game"] == 0
    assert "invalid_actions/poker_maniac" not in metrics  # (not a program that may send one)
    logged = client.get_run(result["run_id"]).data.metrics
    assert logged["invalid_actions/folder a.game"] == sent[folder]
    hands = Path(client.download_artifacts(result["run_id"], "hands.log", str(tmp_path)))
    seated = {n for line in hands.read_text().splitlines() for n in line.split(":")[-1].split("|")}
    assert {"folder_a.game", "caller_a.game"} <= seated  # (blanks as _: the log's format)


def test_eleusis_by_default_tells_a_learner_from_random_and_keeps_its_record_short(tmp_path):
    """#47 item 16: on the registered game's Dirichlet deck nearly every game hit the cap,
    learner or not; the arena's default deck (Zipf) lets a learner finish in hundreds of guesses
    where random never does. ``eleusis.*`` sets deck, harma and cap; a bad one is one line, and
    games.txt holds twelve guesses a line."""
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    done = run_pipeline(
        "arena", "game=eleusis", "agent=eleusis@kl_ucb", "field=[random]", "units=3", "block=3",
        f"output_dir={tmp_path / 'arena'}", f"tracking.uri={uri}", cwd=tmp_path, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    client = MlflowClient(uri)
    [run] = client.search_runs([client.get_experiment_by_name("arena").experiment_id])
    assert run.data.params["eleusis.deck"] == "zipf"
    assert run.data.metrics["pair/eleusis_kl_ucb/random/score"] == 1.0  # every unit
    text = Path(client.download_artifacts(run.info.run_id, "games.txt", str(tmp_path))).read_text()
    rows = [json.loads(line) for line in Path(client.download_artifacts(
        run.info.run_id, "games.jsonl", str(tmp_path))).read_text().splitlines()]  # fmt: skip
    guesses = sum(len(r["actions"]) for r in rows)
    assert sum(len(r["actions"]) == 2000 for r in rows) == 3  # random: the cap, every time
    assert len(text.splitlines()) < guesses / 10  # (one line a guess before)
    assert "1-12: " in text and "end: returns [-2000]" in text

    refused = run_pipeline("arena", "game=eleusis", "eleusis.deck=zipff", "eleusis.cap=0",
                           cwd=tmp_path, timeout=120)  # fmt: skip
    assert refused.returncode == 2
    [line] = refused.stderr.strip().splitlines()
    assert "eleusis.deck=zipff is not allowed" in line and "unknown family 'zipff'" in line
