"""Hold'em decision by decision (sparring.poker.game): the same rules as the reference table."""

import re

import numpy as np
import pytest

from sparring.game_api import TERMINAL, IllegalActionError
from sparring.poker.catalog import N_GENES
from sparring.poker.evaluator import evaluate7
from sparring.poker.game import Holdem, HoldemHand
from sparring.poker.table import play_hand_reference

_ACTION = re.compile(r"^seat (\d+) \(player \d+\) (?:checks|calls|bets|raises|folds).*; (\w+)\)$")


def test_blinds_and_the_first_decision_heads_up():
    hand = Holdem(2).new_state(5)
    obs = hand.observation(1)
    assert hand.current_player() == 1  # the button posts the small blind and acts first
    assert obs["contributions"] == [2, 1] and obs["to_call"] == 1 and obs["board"] == []
    assert hand.legal_actions() == ["fold", "call", "raise"]
    hand.apply_action("call")
    assert hand.current_player() == 0 and hand.legal_actions() == ["call", "raise"]  # no free fold
    with pytest.raises(IllegalActionError, match="'fold' is not allowed now"):
        hand.apply_action("fold")
    hand.apply_action("call")
    assert hand.observation(0)["street"] == "flop" and len(hand.observation(0)["board"]) == 3


def test_a_street_is_capped_at_four_bets():
    hand = Holdem(2).new_state(1)
    for _ in range(3):  # the big blind is the first bet
        hand.apply_action("raise")
    assert hand.legal_actions() == ["fold", "call"]


def test_a_fold_ends_the_hand_and_shows_no_cards():
    hand = Holdem(3).new_state(2)
    hand.apply_action("fold")
    hand.apply_action("fold")
    assert hand.is_terminal() and hand.current_player() == TERMINAL and hand.legal_actions() == []
    assert hand.returns() == [-1.0, 1.0, 0.0]
    assert hand.observation(0)["showdown"] == [] and len(hand.observation(0)["hole"]) == 2


@pytest.mark.parametrize("seats", [2, 3, 6, 10])
def test_the_reference_table_plays_the_same_hands(seats):
    """Policies play a hand on the reference table; replayed decision by decision here, the
    same actions are legal in the same order and the hand ends with the same chips."""
    rng = np.random.default_rng(seats)
    for deal in range(40):
        hand = Holdem(seats).new_state(deal)
        seven = [[*hand.holes[s], *hand.board] for s in range(seats)]
        strength = evaluate7(np.array(seven, dtype=np.uint8))
        equity = rng.random((seats, 4, seats - 1)).astype(np.float32)
        genes = np.sort(rng.integers(-100, 101, (seats, N_GENES, 2)), axis=2).astype(np.int8)
        trace = play_hand_reference(equity, strength, list(range(seats)), list(range(seats)), genes)
        for line in trace.lines:
            if m := _ACTION.match(line):
                assert hand.current_player() == int(m.group(1)), line
                hand.apply_action(m.group(2))
        assert hand.is_terminal()
        assert hand.returns() == pytest.approx(trace.net_by_seat)


def test_a_showdown_shows_the_hands_still_in_and_clone_is_independent():
    hand = Holdem(2).new_state(9)
    while not hand.is_terminal():
        twin = hand.clone()
        twin.apply_action("raise" if "raise" in twin.legal_actions() else "call")
        assert isinstance(twin, HoldemHand)
        hand.apply_action("call")
    obs = hand.observation(0)
    assert len(obs["board"]) == 5 and [s for s, _ in obs["showdown"]] == [0, 1]
    assert sum(hand.returns()) == 0.0 and hand.observation(1)["pot"] == 4
