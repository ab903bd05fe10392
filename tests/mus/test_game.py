"""The Mus hand engine: phases, rotation, discards and reshuffles, órdago, properties."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sparring.mus.engine import (
    DISCARD,
    DISCARDING,
    MUS,
    MUS_DECISION,
    NO_MUS,
    MusConfig,
    MusGame,
)
from sparring.mus.lance import ENVIDO, ORDAGO, PASO, QUIERO, Action, IllegalActionError


def random_play(state, seed, max_steps=20_000, check=None):
    rng = np.random.default_rng(seed)
    steps = 0
    while not state.is_terminal() and steps < max_steps:
        actions = state.legal_actions()
        state.apply_action(actions[rng.integers(len(actions))])
        steps += 1
        if check:
            check(state)
    return steps


def test_deal_and_seating():
    state = MusGame().new_initial_state(3)
    assert state.mano == (state.dealer + 1) % 4
    assert all(len(h) == 4 for h in state.hands) and len(state.stock) == 24
    assert state.card_count() == 40
    assert state.current_player() == state.mano and state.phase == MUS_DECISION


def test_first_no_mus_cuts_and_the_mano_opens_grande():
    state = MusGame().new_initial_state(4)
    mano = state.mano
    state.apply_action(Action(MUS))
    state.apply_action(Action(NO_MUS))
    assert state.phase == "betting" and state.lance.name == "grande"
    assert state.current_player() == mano


def test_four_mus_then_discards_with_public_counts():
    state = MusGame().new_initial_state(5)
    for _ in range(4):
        state.apply_action(Action(MUS))
    assert state.phase == DISCARDING and state.current_player() == state.mano
    with pytest.raises(IllegalActionError, match="discard 1 to 4 cards"):
        state.apply_action(Action(DISCARD, 0))
    first = state.current_player()
    state.apply_action(Action(DISCARD, 0b0011))
    seen_by_other = state.observation((first + 1) % 4)["history"]
    assert ("discard", first, 2) in seen_by_other  # how many: public
    assert not any(k == "discarded_cards" and s == first for k, s, _ in seen_by_other)
    for _ in range(3):
        state.apply_action(Action(DISCARD, 0b1000))
    assert state.phase == MUS_DECISION and state.mus_rounds == 1
    assert all(len(h) == 4 for h in state.hands) and state.card_count() == 40


@pytest.mark.parametrize("option", ["all_discards", "keep_last_players_own"])
def test_stock_exhaustion_reshuffles_the_pile(option):
    state = MusGame(MusConfig(reshuffle=option)).new_initial_state(6)
    for _ in range(2):  # two rounds of 4 x 4 discards need 32 cards from a 24-card stock
        for _ in range(4):
            state.apply_action(Action(MUS))
        for _ in range(4):
            state.apply_action(Action(DISCARD, 0b1111))
        assert state.card_count() == 40 and all(len(h) == 4 for h in state.hands)
    assert any(e.kind == "reshuffle" for e in state.events)


def test_illegal_actions_change_nothing():
    state = MusGame().new_initial_state(7)
    before = (state.phase, list(state.queue), len(state.events))
    with pytest.raises(IllegalActionError):
        state.apply_action(Action(ENVIDO, 2))
    assert (state.phase, list(state.queue), len(state.events)) == before


def test_accepted_ordago_ends_the_juego_for_the_lance_winner():
    state = MusGame().new_initial_state(8)
    state.apply_action(Action(NO_MUS))
    winner = state.table().card_winner("grande") % 2
    state.apply_action(Action(ORDAGO))
    state.apply_action(Action(QUIERO))
    assert state.juegos[winner] == 1 or state.vacas[winner] == 1
    assert state.scores == [0, 0] and state.hand_number == 2


def test_the_deal_rotates_to_the_right():
    state = MusGame().new_initial_state(9)
    mano = state.mano
    state.apply_action(Action(NO_MUS))
    while state.hand_number == 1:
        state.apply_action(
            Action(PASO) if Action(PASO) in state.legal_actions() else state.legal_actions()[0]
        )
    assert state.dealer == mano and state.mano == (mano + 1) % 4


def test_replays_from_a_seed_are_identical():
    a, b = MusGame().new_initial_state(11), MusGame().new_initial_state(11)
    random_play(a, 3)
    random_play(b, 3)
    assert [(e.kind, e.seat, e.detail) for e in a.events] == [
        (e.kind, e.seat, e.detail) for e in b.events
    ]


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    play_seed=st.integers(0, 10**6),
    pair_joint=st.booleans(),
    ocho=st.booleans(),
)
def test_random_legal_play_properties(seed, play_seed, pair_joint, ocho):
    config = MusConfig(
        response_model="pair_joint" if pair_joint else "sequential", ocho_reyes=ocho, max_bet=6
    )
    state = MusGame(config).new_initial_state(seed)
    last = {"scores": list(state.scores), "juegos": sum(state.juegos) + 10 * sum(state.vacas)}

    def check(s):
        assert s.card_count() == 40
        progress = sum(s.juegos) + 10 * sum(s.vacas)
        if progress == last["juegos"]:  # within a juego scores only grow
            assert all(n >= o for n, o in zip(s.scores, last["scores"], strict=True))
        last["scores"], last["juegos"] = list(s.scores), progress
        if not s.is_terminal():
            seat = s.current_player()
            history = s.observation(seat)["history"]
            # since this hand's deal the seat has seen only cards dealt or served to itself:
            # no reveal mid-hand, nothing of another player's
            last_deal = max(i for i, (k, _, _) in enumerate(history) if k == "deal")
            own = {
                c for k, who, d in history[last_deal:] if k == "cards" and who == seat for c in d
            }
            assert own >= set(s.hands[seat])
            assert not any(k == "reveal" for k, _, _ in history[last_deal:])
            assert not any(k == "cards" and who != seat for k, who, _ in history)

    steps = random_play(state, play_seed, check=check)
    assert state.is_terminal(), steps


@pytest.mark.parametrize(
    ("option", "kept_aside"), [("all_discards", 0), ("keep_last_players_own", 2)]
)
def test_reshuffle_option_keeps_the_last_players_own_discards_aside(option, kept_aside):
    state = MusGame(MusConfig(reshuffle=option)).new_initial_state(12)
    serving = state.mano
    own = state.hands[serving][:2]
    state.discarded = {serving: own}
    state.pile = [*own, *state.stock[:6]]
    state.stock = []
    state._reshuffle(serving, others_owed=[])
    assert len(state.pile) == kept_aside
    assert set(own) <= set(state.stock) if kept_aside == 0 else set(state.pile) == set(own)
