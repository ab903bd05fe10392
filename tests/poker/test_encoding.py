"""Poker's bridge methods (#50): ``actions()`` holds every legal action of every hand once, and
``encode`` turns a seat's observation alone into ``observation_shape()`` float32s in [0, 1]:
checked against the hand itself over random hands, at two to ten seats, and by hands that
differ only in what the seat may not see (equal encodings) or in its own cards (different)."""

from __future__ import annotations

import copy
import json
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sparring.game_api import TERMINAL
from sparring.poker import encoding
from sparring.poker.game import BOARD_SHOWN, GAME, Holdem, HoldemHand
from sparring.poker.rules import ACTION_NAMES

SEATS = st.sampled_from([2, 2, 3, 6, 10])


def playout(hand: HoldemHand, rng: random.Random) -> list[HoldemHand]:
    """Every state of ``hand`` played with random legal actions to its end (copies)."""
    states = [hand.clone()]
    while not hand.is_terminal():
        hand.apply_action(rng.choice(hand.legal_actions()))
        states.append(hand.clone())
    return states


def ones(vector: np.ndarray) -> list[int]:
    return np.flatnonzero(vector).tolist()


def check_against_the_hand(game: Holdem, hand: HoldemHand, seat: int) -> np.ndarray:
    """``encode`` of ``seat``'s observation: its shape and range, and each part read back
    equal to the hand's own state (its cards, chips, seats and words)."""
    obs = hand.observation(seat)
    before = copy.deepcopy(obs)
    x = game.encode(obs)
    assert obs == before  # the observation is read, never changed
    assert x.shape == game.observation_shape() and x.dtype == np.float32
    assert np.isfinite(x).all() and x.min() >= 0.0 and x.max() <= 1.0
    n, parts = game.num_players, encoding.layout(game.num_players)
    assert ones(x[parts["hole"]]) == sorted(hand.holes[seat])
    assert ones(x[parts["board"]]) == sorted(hand.board[: BOARD_SHOWN[hand.street]])
    assert ones(x[parts["street"]]) == [hand.street]
    assert ones(x[parts["seat"]]) == [seat]
    to_act = hand.current_player()
    assert ones(x[parts["to_act"]]) == ([] if to_act == TERMINAL else [to_act])
    assert ones(x[parts["active"]]) == [s for s in range(n) if hand.active[s]]
    chips = x[parts["contributions"]] * encoding.MAX_CONTRIBUTION
    assert np.allclose(chips, hand.contrib, atol=1e-4)
    assert x[parts["to_call"]][0] * encoding.MAX_TO_CALL == pytest.approx(hand.owed(seat))
    assert x[parts["bets"]][0] * 4 == pytest.approx(hand.bets)
    assert x[parts["pot"]][0] * encoding.MAX_CONTRIBUTION * n == pytest.approx(sum(hand.contrib))
    said = np.zeros((4, n, 3))
    for street, words in enumerate(hand.history):
        for who, word in words:
            said[street, who, ACTION_NAMES.index(word)] += 1
    counts = x[parts["actions"]].reshape(4, n, 3) * np.array([1, encoding.MAX_CALLS, 4])
    assert np.allclose(counts, said, atol=1e-4)
    shown = x[parts["showdown"]].reshape(n, 52)
    for s in range(n):
        expected = sorted(hand.holes[s]) if s in hand.shown else []
        assert ones(shown[s]) == expected
    return x


def test_the_action_set_is_the_three_words_once():
    assert tuple(GAME.actions()) == ("fold", "call", "raise") == ACTION_NAMES
    assert len(set(GAME.actions())) == len(GAME.actions())
    assert Holdem(10).actions() == GAME.actions()


@pytest.mark.parametrize("seats", range(2, 11))
def test_the_observation_shape_is_111_plus_68_per_seat(seats):
    game = Holdem(seats)
    assert game.observation_shape() == (111 + 68 * seats,) == (encoding.size(seats),)
    assert game.encode(game.new_state(0).observation(0)).shape == game.observation_shape()
    assert GAME.observation_shape() == (247,) and Holdem(10).observation_shape() == (791,)


@settings(max_examples=120, deadline=None)
@given(seats=SEATS, seed=st.integers(0, 2**32 - 1), play=st.integers(0, 2**32 - 1))
def test_random_hands_offer_only_listed_actions_and_encode_as_they_are(seats, seed, play):
    game = Holdem(seats)
    actions = list(game.actions())
    for hand in playout(game.new_state(seed), random.Random(play)):
        assert set(hand.legal_actions()) <= set(actions)
        for seat in range(seats):
            x = check_against_the_hand(game, hand, seat)
            # the same observation, through JSON (as an outside agent gets it), the same array
            again = json.loads(json.dumps(hand.observation(seat)))
            np.testing.assert_array_equal(game.encode(again), x)


def test_every_word_is_offered_somewhere_at_ten_seats():
    """The list is tight: each of its actions is legal in some hand (at ten seats too)."""
    for seats in (2, 10):
        offered: set[str] = set()
        for seed in range(20):
            for hand in playout(Holdem(seats).new_state(seed), random.Random(seed)):
                offered |= set(hand.legal_actions())
        assert offered == set(Holdem(seats).actions())


def _unused(hand: HoldemHand, rng: random.Random, k: int) -> list[int]:
    used = {c for hole in hand.holes for c in hole} | set(hand.board)
    return rng.sample(sorted(set(range(52)) - used), k)


@settings(max_examples=80, deadline=None)
@given(seats=SEATS, seed=st.integers(0, 2**32 - 1), play=st.integers(0, 2**32 - 1))
def test_a_seat_s_encoding_changes_only_with_what_it_may_see(seats, seed, play):
    """Four hands played with the same words from one deal: as dealt; with every other seat's
    hole cards replaced by unused cards; with the turn and the river replaced; with the
    observer's own hole cards replaced. The observer's encoding of the second is the first's
    until a showdown shows the replaced cards, of the third until the turn is dealt (then
    both differ), and of the fourth differs at every step."""
    rng = random.Random(play)
    base = Holdem(seats).new_state(seed)
    me = rng.randrange(seats)
    fresh = iter(_unused(base, rng, 2 * seats + 2))
    others = [h if s == me else (next(fresh), next(fresh)) for s, h in enumerate(base.holes)]
    holes = HoldemHand(others, base.board)
    board = HoldemHand(base.holes, [*base.board[:3], next(fresh), next(fresh)])
    mine = [(next(fresh), next(fresh)) if s == me else h for s, h in enumerate(base.holes)]
    own = HoldemHand(mine, base.board)
    assert holes.holes != base.holes and board.board != base.board and own.holes != base.holes
    game = Holdem(seats)
    hands = (base, holes, board, own)
    while True:
        x, h, b, o = (game.encode(hand.observation(me)) for hand in hands)
        assert np.array_equal(x, h) == (not base.shown)
        assert np.array_equal(x, b) == (base.street < 2)
        assert not np.array_equal(x, o)
        if base.is_terminal():
            break
        legal = base.legal_actions()
        assert all(hand.legal_actions() == legal for hand in hands)
        word = rng.choice(legal)
        for hand in hands:
            hand.apply_action(word)


def test_equal_observations_encode_equal_and_others_do_not():
    """Over many hands, observations with the same JSON have the same array and different
    ones different arrays: the encoding keeps all an observation says but the seat count and
    the button (fixed at a table) and orders (of the cards of a hand, the board, the words
    within a street)."""
    seen: dict[bytes, str] = {}
    arrays: dict[str, bytes] = {}
    for seed in range(150):
        hand = GAME.new_state(seed % 50)  # each deal three times, with other words
        for state in playout(hand, random.Random(seed)):
            for seat in range(2):
                obs = state.observation(seat)
                # as sets: the cards of a hand and the words of each street
                obs["hole"], obs["board"] = sorted(obs["hole"]), sorted(obs["board"])
                obs["showdown"] = [[s, sorted(hole)] for s, hole in obs["showdown"]]
                obs["history"] = [sorted(map(tuple, words)) for words in obs["history"]]
                key = json.dumps(obs, sort_keys=True)
                x = GAME.encode(obs).tobytes()
                assert seen.setdefault(x, key) == key and arrays.setdefault(key, x) == x
    assert len(seen) > 1000


def test_an_observation_of_another_table_or_with_a_bad_card_is_refused():
    obs = Holdem(3).new_state(1).observation(0)
    with pytest.raises(ValueError, match="of 3 seats, not 2"):
        GAME.encode(obs)
    bad = GAME.new_state(1).observation(0)
    bad["hole"] = ["Zz", "As"]
    with pytest.raises(ValueError, match="not cards"):
        GAME.encode(bad)
