"""The post-game cycle on a real SQLite store, the profile view, the ES/EN summaries."""

import sqlite3

import pytest

from sparring.modeling.cycle import ModelServer
from sparring.modeling.drift import DriftConfig, StrategyShiftSuspected
from sparring.modeling.metrics import Context, observations
from sparring.modeling.model import PlayerModel
from sparring.modeling.store import (
    SCHEMA_VERSION,
    add_counts,
    add_game,
    load,
    load_replay,
    open_store,
    profile_view,
    save_replay,
    scale_counts,
)
from sparring.modeling.summary import summarize, user_message
from sparring.mus.engine import MusGame
from sparring.mus.log import play_match
from sparring.mus.players import SyntheticPlayer

GRANDE_BEHIND = Context("grande", "behind", "mid", "mano")
GRANDE_EVEN = Context("grande", "even", "mid", "mano")


def _model():
    model = PlayerModel("bob")
    for i in range(10):
        model.observe("acceptance_rate", GRANDE_EVEN, i < 8)
    for i in range(20):
        model.observe("bluff_frequency", GRANDE_EVEN, i < 9)
    for i in range(30):
        model.observe("aggression", GRANDE_BEHIND, i < 21)  # 70% when behind
        model.observe("aggression", GRANDE_EVEN, i < 9)  # 30% otherwise
    return model


def test_summaries_in_spanish_and_english():
    model = _model()
    es = summarize(model, model, lang="es")
    en = summarize(model, model, lang="en")
    assert es[0] == "El rival aceptó 8 de 10 envites."
    assert en[0] == "The opponent accepted 8 of 10 bets."
    assert en[1].startswith("Tends to bluff in grande (P≈0.4") and "confidence)." in en[1]
    assert es[1].startswith("Tiende a farolear en grande (P≈0.4")
    # pooled with a uniform prior: behind (21+1)/(30+2) = 0.6875, overall 31/62 = 0.5
    assert en[2] == "More aggressive when behind (+19 pp)."
    assert es[2] == "Más agresivo cuando va por detrás (+19 pp)."
    shift = StrategyShiftSuspected("aggression", (), 3, "js", 0.2, 0.7)
    last = summarize(model, model, [shift], "en")[-1]
    assert last == "Possible change of strategy in aggression."
    assert summarize(PlayerModel("new"), PlayerModel("new"), lang="en") == [
        "Not enough data on this opponent yet."
    ]
    assert user_message("en") == "The bot has updated its model of your play."
    assert user_message("es") == "El bot ha actualizado su modelo de tu juego."
    with pytest.raises(ValueError, match="language"):
        summarize(model, model, lang="fr")


def test_store_statistics_replays_scaling_and_profile(tmp_path):
    conn = open_store(tmp_path / "m.db")
    add_counts(conn, "eve", [("aggression", (), 6.0, 4.0), ("aggression", ("grande",), 2.0, 2.0)])
    add_game(conn, "eve", 12)
    add_game(conn, "eve", 8)
    save_replay(conn, "eve", "g1", [["bet", 1, ["grande", "envido(2)"]]])
    assert load_replay(conn, "eve", "g1") == [["bet", 1, ["grande", "envido(2)"]]]
    assert load_replay(conn, "eve", "g2") is None
    assert load(conn, "eve").sample_size == 20
    scale_counts(conn, "eve", "aggression", 0.5)
    assert load(conn, "eve").counts[("aggression", ())] == [3.0, 2.0]
    view = profile_view(conn, "eve")
    assert (view.games, view.hands) == (2, 20)
    aggression = next(m for m in view.metrics if m.metric == "aggression")
    assert aggression.low < aggression.mean < aggression.high
    assert view.lines()[0] == "eve: 2 games, 20 hands"


def test_a_version_2_store_is_migrated_to_3(tmp_path):
    path = tmp_path / "v2.db"
    conn = sqlite3.connect(path)
    conn.execute(
        "CREATE TABLE player_models (player_id TEXT NOT NULL, metric TEXT NOT NULL, context "
        "TEXT NOT NULL, successes REAL NOT NULL DEFAULT 0, failures REAL NOT NULL DEFAULT 0, "
        "updated_at REAL NOT NULL DEFAULT 0, PRIMARY KEY (player_id, metric, context))"
    )
    conn.execute("INSERT INTO player_models VALUES ('dan', 'aggression', '', 1, 2, 5.0)")
    conn.execute("PRAGMA user_version = 2")
    conn.commit()
    conn.close()
    store = open_store(path)
    assert store.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
    tables = {r[0] for r in store.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"player_models", "player_stats", "replays"} <= tables
    assert load(store, "dan").counts[("aggression", ())] == [1, 2]


def test_the_post_game_cycle_updates_the_store_with_exactly_the_games_observations(tmp_path):
    server = ModelServer(tmp_path / "m.db", humans=frozenset({"human"}))
    players = [SyntheticPlayer.with_rates(seed=i, aggression=0.5) for i in range(4)]
    state, log = play_match(MusGame(), players, seed=3)
    seats = {1: "human", 3: "bot"}
    reports = server.after_game("g0", log, seats, replays={"human": [["deal"]], "bot": [["x"]]})
    expected = PlayerModel("human")
    for seat, metric, ctx, success in observations(log):
        if seat == 1:
            expected.observe(metric, ctx, success)
    stored = server.model("human")
    assert dict(stored.counts) == dict(expected.counts)
    assert stored.sample_size == state.hand_number
    assert load_replay(server.conn, "human", "g0") == [["deal"]]
    assert load_replay(server.conn, "bot", "g0") is None  # only humans keep replays
    human = next(r for r in reports if r.player_id == "human")
    assert set(human.summary) == {"es", "en"} and human.summary["en"]
    assert human.user_message["es"] == "El bot ha actualizado su modelo de tu juego."
    server.close()


def test_a_suspected_shift_reduces_the_long_term_confidence(tmp_path):
    server = ModelServer(tmp_path / "m.db", DriftConfig())
    calm = [SyntheticPlayer.with_rates(seed=i, aggression=0.05) for i in range(4)]
    for g in range(3):
        _, log = play_match(MusGame(), calm, seed=g)
        server.after_game(str(g), log, {1: "p"})
    before = server.model("p").counts[("aggression", ())]
    wild = [SyntheticPlayer.with_rates(seed=10 + i, aggression=0.9, bluff_frequency=0.3)
            for i in range(4)]  # fmt: skip
    _, log = play_match(MusGame(), wild, seed=9)
    added = sum((seat, metric) == (1, "aggression") for seat, metric, _, _ in observations(log))
    report = server.after_game("wild", log, {1: "p"})[0]
    assert any(s.metric == "aggression" for s in report.shifts)
    after = server.model("p").counts[("aggression", ())]
    # the game's evidence was added, then the long model scaled down (once or more)
    factor = DriftConfig().confidence_factor
    shifts = sum(s.metric == "aggression" for s in report.shifts)
    assert sum(after) == pytest.approx(factor**shifts * (sum(before) + added))
    server.close()
