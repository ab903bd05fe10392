"""Metric extraction on hand-built logs, back-off, and the SQLite store."""

import multiprocessing as mp
import sqlite3
from dataclasses import replace

import pytest

from sparring.modeling.metrics import Context, context_of, observations
from sparring.modeling.model import PlayerModel
from sparring.modeling.store import SCHEMA_VERSION, add_counts, add_model, load, open_store
from sparring.mus.log import Decision

BASE = Decision(
    match=0,
    hand=1,
    lance="grande",
    seat=1,
    distance=1,
    lance_mano=False,
    score_own=10,
    score_other=3,
    juegos_own=0,
    juegos_other=0,
    mus_rounds=0,
    pending=False,
    accepted=0,
    stake=0,
    raised=False,
    is_ordago=False,
    action="paso",
    amount=0,
    all_hands=[1] * 16,
    pct_grande=0.9,
)


def obs(record):
    return [(m, s) for _, m, _, s in observations([record])]


def test_each_metric_counts_exactly_its_successes_and_opportunities():
    assert obs(BASE) == [("aggression", False), ("ordago_rate", False)]
    bet = replace(BASE, action="envido", amount=2, pct_grande=0.2)
    assert obs(bet) == [
        ("aggression", True),
        ("ordago_rate", False),
        ("bluff_frequency", True),
    ]  # weak hand: a bluff
    strong_bet = replace(bet, pct_grande=0.8)
    assert ("bluff_frequency", False) in obs(strong_bet)
    unrevealed = replace(bet, all_hands=[])
    assert all(m != "bluff_frequency" for m, _ in obs(unrevealed))  # only with revealed cards
    answer = replace(BASE, pending=True, action="quiero", pct_grande=0.1)
    assert obs(answer) == [
        ("aggression", False),
        ("ordago_rate", False),
        ("acceptance_rate", True),
        ("rejection_rate", False),
        ("raise_rate", False),
        ("risk_tolerance", True),
    ]
    vs_ordago = replace(BASE, pending=True, is_ordago=True, action="no_quiero")
    assert obs(vs_ordago) == [("acceptance_rate", False), ("rejection_rate", True)]
    assert obs(replace(BASE, lance="mus", action="mus")) == [("mus_rate", True)]
    assert obs(replace(BASE, lance="mus", action="no_mus")) == [("mus_rate", False)]


def test_contexts():
    assert context_of(BASE) == Context("grande", "ahead", "early", "postre")
    assert context_of(replace(BASE, score_own=33, distance=2)).score == "close_to_target"
    assert context_of(replace(BASE, score_own=20, score_other=31)).phase == "late"
    assert context_of(replace(BASE, distance=0)).position == "mano"


def test_back_off_shrinks_to_the_parent_and_converges_with_data():
    model = PlayerModel("p", k=10)
    general = Context("chica", "even", "mid", "mano")
    specific = Context("grande", "even", "mid", "mano")
    for i in range(200):
        model.observe("aggression", general, i % 10 < 2)  # 20% elsewhere
    for _ in range(3):
        model.observe("aggression", specific, True)
    few = model.estimate("aggression", specific).mean()
    # three successes (raw rate 1.0) are shrunk towards the player's 20% through 3 levels
    assert 0.2 < few < 0.75
    for _ in range(500):
        model.observe("aggression", specific, True)
    assert model.estimate("aggression", specific).mean() > 0.95
    assert "P(aggression) = " in model.statement("aggression")


def test_store_round_trip_and_restart(tmp_path):
    path = tmp_path / "models.db"
    model = PlayerModel("alice")
    model.observe("bluff_frequency", Context("pares", "even", "early", "mano"), True)
    conn = open_store(path)
    add_model(conn, model)
    conn.close()
    again = load(open_store(path), "alice")  # a new connection: survives a restart
    assert dict(again.counts) == {k: list(v) for k, v in model.counts.items()}
    assert again.estimate("bluff_frequency").mean() == model.estimate("bluff_frequency").mean()


def _writer(path, n):
    conn = open_store(path)
    for _ in range(n):
        add_counts(conn, "bob", [("aggression", ("grande",), 1.0, 0.0)])
    conn.close()


def test_two_processes_updating_the_same_player_lose_nothing(tmp_path):
    path = str(tmp_path / "models.db")
    open_store(path).close()
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(path, 200)) for _ in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert all(p.exitcode == 0 for p in procs)
    model = load(open_store(path), "bob")
    assert model.counts[("aggression", ("grande",))][0] == 400


def test_an_old_schema_is_migrated(tmp_path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.execute(
        "CREATE TABLE player_models (player_id TEXT, metric TEXT, context TEXT, "
        "successes REAL, failures REAL, PRIMARY KEY (player_id, metric, context))"
    )
    conn.execute("INSERT INTO player_models VALUES ('carol', 'aggression', '', 3, 1)")
    conn.commit()
    conn.close()
    store = open_store(path)
    assert store.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    columns = [r[1] for r in store.execute("PRAGMA table_info(player_models)")]
    assert "updated_at" in columns
    assert load(store, "carol").counts[("aggression", ())] == [3, 1]
    store.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    store.close()
    with pytest.raises(ValueError, match="newer than this code"):
        open_store(path)
