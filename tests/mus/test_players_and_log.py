"""Synthetic players realise their rates; shift_after switches; the decision log."""

from dataclasses import asdict, replace

import numpy as np
import pyarrow as pa
import pytest

from sparring.mus.engine import MusGame
from sparring.mus.log import LOG_SPEC, play_match, to_arrow
from sparring.mus.players import RandomPlayer, SyntheticPlayer
from sparring.runtime.storage.datasets import read_table, write_table


def records_of(players_factory, matches, seed=0):
    out, states = [], []
    for m in range(matches):
        state, recs = play_match(MusGame(), players_factory(m), seed=seed + m, match_id=m)
        out += recs
        states.append(state)
    return out, states


def rate(successes, opportunities):
    n = len(opportunities)
    p = successes / n
    return p, np.sqrt(max(p * (1 - p), 1e-4) / n)


def test_realised_rates_converge_to_the_parameters():
    params = dict(
        aggression=0.35,
        bluff_frequency=0.3,
        acceptance_rate=0.6,
        risk_tolerance=0.25,
        raise_rate=0.0,
        ordago_rate=0.0,
        mus_rate=0.3,
    )
    recs, _ = records_of(
        lambda m: [SyntheticPlayer.with_rates(seed=10 * m + i, **params) for i in range(4)],
        matches=25,
    )
    mus_turns = [r for r in recs if r.lance == "mus"]
    p, se = rate(sum(r.action == "mus" for r in mus_turns), mus_turns)
    assert abs(p - params["mus_rate"]) < 4 * se, (p, se)  # exact: P(mus) is the parameter
    recs = [r for r in recs if r.lance != "mus"]
    open_turns = [r for r in recs if not r.pending]
    bets = [r for r in open_turns if r.action == "envido"]
    p, se = rate(len(bets), open_turns)
    assert abs(p - params["aggression"]) < 4 * se + 0.02, (p, se)
    answers = [r for r in recs if r.pending]
    accepted = [r for r in answers if r.action == "quiero"]
    p, se = rate(len(accepted), answers)
    assert abs(p - params["acceptance_rate"]) < 4 * se + 0.02, (p, se)
    weak_bets = [r for r in bets if getattr(r, f"pct_{r.lance}", 1.0) < 0.4]
    p, se = rate(len(weak_bets), bets)
    assert abs(p - params["bluff_frequency"]) < 4 * se + 0.05, (p, se)


def test_shift_after_switches_profile_at_the_right_hand():
    player = SyntheticPlayer.with_rates(aggression=0.0, shift_after=3, shifted={"aggression": 1.0})
    assert player.current("grande").aggression == 0.0
    for _ in range(3):
        player.on_hand_end(())
    assert player.current("grande").aggression == 1.0


def test_decision_log_round_trips_through_parquet(tmp_path):
    recs, states = records_of(lambda m: [RandomPlayer(seed=m * 4 + i) for i in range(4)], 3)
    assert recs and all(s.is_terminal() for s in states)
    assert all(len(r.all_hands) == 16 for r in recs)  # hands filled in after the reveal
    assert all(r.own_hand == sorted(r.own_hand) or len(r.own_hand) == 4 for r in recs)
    refusals = [r for r in recs if r.action == "no_quiero"]
    assert any(r.final for r in refusals)
    table = to_arrow(recs)
    path = write_table(table, tmp_path / "log.parquet", LOG_SPEC, config_hash="x", seed=0)
    back = read_table(path, LOG_SPEC)
    assert back.num_rows == len(recs)
    assert back.column("action").to_pylist() == [r.action for r in recs]
    # every field of every decision, as the dataclass holds it (no hands shown: 16 zeros), in
    # the schema's types (percentiles are float32): the rows converted one by one
    rows = [asdict(r) | {"all_hands": r.all_hands or [0] * 16} for r in recs]
    assert back.to_pylist() == pa.Table.from_pylist(rows, schema=LOG_SPEC.schema).to_pylist()
    unrevealed = to_arrow([replace(recs[0], all_hands=[])])  # a decision of a hand not shown
    assert unrevealed.column("all_hands").to_pylist() == [[0] * 16]
    assert {"mus", "grande"} <= set(back.column("lance").to_pylist())


def test_players_get_the_hands_public_events_at_hand_end():
    class Listener(RandomPlayer):
        def on_hand_end(self, revealed, public=()):
            self.ends = [*getattr(self, "ends", []), (revealed, public)]

    players = [Listener(seed=i) for i in range(4)]
    state, recs = play_match(MusGame(), players, seed=5)
    ends = players[0].ends
    assert len(ends) == state.hand_number
    for revealed, public in ends:
        kinds = [k for k, _, _ in public]
        assert kinds[0] == "deal" and kinds.count("deal") == 1
        assert "cards" not in kinds and "discarded_cards" not in kinds  # private events
        assert len(revealed) == 4 and all(len(h) == 4 for h in revealed)
    # every logged bet of a hand appears in that hand's public events, in order
    first = [r for r in recs if r.hand == 1 and r.lance != "mus"]
    bets = [d for k, _, d in ends[0][1] if k == "bet"]
    assert [b[0] for b in bets] == [r.lance for r in first]


@pytest.mark.parametrize("seed", [0, 1])
def test_own_hand_is_the_players_and_percentiles_are_in_range(seed):
    recs, _ = records_of(
        lambda m: [SyntheticPlayer.with_rates(seed=m * 4 + i) for i in range(4)], 2, seed=seed
    )
    for r in recs:
        start = 4 * r.seat
        assert 0 <= r.pct_grande <= 1 and 0 <= r.pct_pares <= 1
        if r.lance == "mus":
            continue  # decided before the discards; all_hands are the final hands
        assert sorted(r.own_hand) == sorted(r.all_hands[start : start + 4])
        assert 0 <= r.pct_grande <= 1 and 0 <= r.pct_pares <= 1
