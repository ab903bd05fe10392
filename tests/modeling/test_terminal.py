"""`sparring play mus` as a person uses it."""

import pytest

from sparring.modeling.terminal import parse_command
from sparring.mus.engine import DISCARD, MUS, NO_MUS
from tests.helpers.commands import run_cli


def test_commands_parse_and_bad_ones_say_why():
    assert parse_command("mus").kind == MUS and parse_command("No Mus").kind == NO_MUS
    assert parse_command("discard 1 3").amount == 0b0101
    assert parse_command("discard 1 3").kind == DISCARD
    assert parse_command("envido 5").amount == 5 and parse_command("órdago").kind == "ordago"
    with pytest.raises(ValueError, match="by position 1..4"):
        parse_command("discard 5")
    with pytest.raises(ValueError, match="envido and a number"):
        parse_command("envido lots")
    with pytest.raises(ValueError, match="is not a command"):
        parse_command("fold")


def test_a_hand_in_the_terminal():
    moves = "hola\nno mus\n" + "paso\nquiero\n" * 12
    proc = run_cli("play", "mus", "--seed", "1", input=moves, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "refused: 'hola' is not a command" in out
    assert "your cards: 1: " in out
    assert "after 1 hand(s)" in out or "bye" in out


def test_simulate_writes_the_decision_log(tmp_path):
    """As a user runs it: its own process, a fresh directory, the default output; a second run
    with the same seed writes the same log (the compiled engine is deterministic)."""
    from sparring.mus.log import LOG_SPEC
    from sparring.runtime.storage.datasets import read_table

    tables = []
    for _ in range(2):
        proc = run_cli("mus", "simulate", "--matches", "2", cwd=tmp_path, timeout=300)
        assert proc.returncode == 0, proc.stderr
        assert "2 matches," in proc.stdout and "compiled on first use" in proc.stdout
        tables.append(read_table(tmp_path / "data" / "mus_decisions.parquet", LOG_SPEC))
    assert tables[0].num_rows > 0 and set(tables[0].column("seat").to_pylist()) <= {0, 1, 2, 3}
    assert tables[0].equals(tables[1])


def test_learning_opponents_remember_the_person_across_sessions(tmp_path):
    from sparring.modeling.store import load, load_replay, open_store

    store = tmp_path / "models.db"
    moves = "no mus\npaso\nquiero\n" * 100  # every prompt accepts one of the three
    for session in range(2):
        proc = run_cli(
            "play", "mus", "--seed", str(session), "--hands", "2", "--store", str(store),
            "--player", "ana", input=moves, timeout=120,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert "The bot has updated its model of your play." in proc.stdout
    conn = open_store(store)
    model = load(conn, "ana")
    assert model.sample_size >= 2  # hands of both sessions
    assert model.counts[("mus_rate", ())][1] >= 2  # "no mus" at least once per session
    replay = load_replay(conn, "ana", "seed-1")
    assert replay and all(e[1] == 0 for e in replay if e[0] in ("cards", "discarded_cards"))
    conn.close()
    shown = run_cli("mus", "profile", "--store", str(store), "--player", "ana", timeout=60)
    assert shown.returncode == 0 and shown.stdout.startswith("ana: 2 games")
    assert "mus_rate" in shown.stdout


def test_illegal_commands_are_refused_with_the_legal_moves():
    proc = run_cli("play", "mus", "--seed", "1", input="quiero\nquit\n", timeout=120)
    assert proc.returncode == 0
    assert "refused: quiero is not allowed now; you may: " in proc.stdout
    assert proc.stdout.rstrip().endswith("bye")
