"""Mus's bridge methods (``Mus.actions``, ``observation_shape``, ``encode``: sparring.mus.encoding)
checked against the game itself over random matches: every legal word is in the action set
once, every observation of every seat encodes to the declared shape, and the encoding is a
function of the seat's observation alone (equal observations of different states, with other
seats' hidden cards, encode alike; the seat's own cards change it). The hidden-card check has a
planted leak it must catch, and the betting summary is checked against the engine's lances."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from sparring.mus.encoding import BET_FEATURES, LANCES, OFFSETS, SIZE
from sparring.mus.engine import BETTING, DISCARDING, MUS_DECISION, MusConfig
from sparring.mus.game import GAME, Mus, MusMatch
from sparring.mus.lance import NO_QUERIDO, ORDAGO_QUERIDO, PENDING, QUERIDO

VARIANTS = {
    "registered": GAME,
    "joint_capped": Mus(MusConfig(target=10, response_model="pair_joint", cap_bets=True)),
    "odd_amounts": Mus(
        MusConfig(
            target=15,
            min_envido=3,
            min_raise=1,
            max_bet=9,
            rejected_raise="fem_plus_deje",
            discard_order="postre_first",
            reshuffle="keep_last_players_own",
            end_on_target_immediately=False,
            first_hand_mus_corrido=True,
            reveal_at_end=False,
            juegos_per_vaca=3,
            vacas_per_match=3,
            max_mus_rounds=3,
        )
    ),
    "cap_below_min": Mus(MusConfig(target=12, min_envido=5, max_bet=3, cap_bets=True)),
}
SEEDS = range(8)
MAX_STEPS = 300  # a match to 40 by random words is ~30-200 decisions


# A patient player: mus more often than not, small bets, few ordagos (matches last longer, with
# more rounds of discards and reshuffles); odd seeds play uniformly random words instead.
WEIGHTS = {"mus": 6, "no_mus": 1, "paso": 4, "envido": 2, "ordago": 0.1, "quiero": 2}
WEIGHTS |= {"no_quiero": 2, "subir": 0.5, "discard": 1}


def choose(rng: random.Random, legal: list[str], patient: bool) -> str:
    if not patient:
        return rng.choice(legal)
    kinds = sorted({a.partition("(")[0] for a in legal})
    kind = rng.choices(kinds, [WEIGHTS[k] for k in kinds])[0]
    words = [a for a in legal if a.partition("(")[0] == kind]
    return words[0] if kind in ("envido", "subir") and rng.random() < 0.7 else rng.choice(words)


def playout(game: Mus, seed: int, steps: int = MAX_STEPS) -> Iterator[MusMatch]:
    """The states of one random match (each before its action), at most ``steps`` of them."""
    rng = random.Random(seed)
    match = game.new_state(seed)
    for _ in range(steps):
        yield match
        if match.is_terminal():
            return
        match.apply_action(choose(rng, match.legal_actions(), patient=seed % 2 == 0))


def test_the_sizes_of_the_registered_game():
    assert len(GAME.actions()) == 99 and GAME.observation_shape() == (SIZE,) == (206,)
    assert GAME.actions()[:3] == ("mus", "no_mus", "discard(1)")


@pytest.mark.parametrize("name", VARIANTS)
def test_every_legal_action_is_in_the_action_set_once(name):
    game = VARIANTS[name]
    actions = game.actions()
    assert len(set(actions)) == len(actions) and all(isinstance(a, str) for a in actions)
    index = {a: i for i, a in enumerate(actions)}
    used: set[str] = set()
    terminal = 0
    for seed in range(24):
        for match in playout(game, seed):
            legal = match.legal_actions()
            assert len(set(legal)) == len(legal)
            missing = [a for a in legal if a not in index]
            assert not missing, f"seed {seed}: {missing} are legal but not in actions()"
            used.update(legal)
            terminal += match.is_terminal()
    assert terminal > 0, "no playout reached the end of a match"
    # every kind of word turns up (the set is not padded with words of another game)
    assert {a.partition("(")[0] for a in used} == {a.partition("(")[0] for a in actions}


@pytest.mark.parametrize("name", ["registered", "joint_capped", "odd_amounts"])
def test_every_observation_of_every_seat_encodes_to_the_shape(name):
    game = VARIANTS[name]
    shape = game.observation_shape()
    for seed in SEEDS:
        for step, match in enumerate(playout(game, seed)):
            for seat in range(4):
                obs = match.observation(seat)
                vector = game.encode(obs)
                assert isinstance(vector, np.ndarray) and vector.dtype == np.float32
                assert vector.shape == shape and np.isfinite(vector).all()
                assert vector.min() >= 0.0 and vector.max() <= 2.0  # modest ranges
            if step % 7 == 0:
                # a copy through JSON (what an outside agent holds) encodes the same, and the
                # encoding leaves the observation as it was
                text = json.dumps(obs, sort_keys=True)
                again = game.encode(json.loads(text))
                assert np.array_equal(again, vector)
                assert json.dumps(obs, sort_keys=True) == text
                # so does the same observation of a copy of the state
                assert np.array_equal(game.encode(match.clone().observation(3)), vector)


def test_distinct_observations_mostly_encode_apart():
    """The encoding is no constant: the observations of one match give many arrays."""
    arrays = {
        GAME.encode(match.observation(seat)).tobytes()
        for match in playout(GAME, 5)
        for seat in range(4)
    }
    assert len(arrays) > 50


# ------------------------------------------------------------ hidden cards and the own hand


def _with_hands(match: MusMatch, order: list[int]) -> MusMatch:
    """A copy whose seat ``s`` holds the cards seat ``order[s]`` held (nothing else moved)."""
    twin = match.clone()
    twin.state.hands = [list(match.state.hands[order[s]]) for s in range(4)]
    return twin


def _rotate_others(seat: int) -> list[int]:
    """The seats' order with the three others' hands passed round (the seat keeps its own)."""
    others = [s for s in range(4) if s != seat]
    order = list(range(4))
    for a, b in zip(others, others[1:] + others[:1], strict=True):
        order[a] = b
    return order


Observe = Callable[[MusMatch, int], dict[str, Any]]


def _observe(match: MusMatch, seat: int) -> dict[str, Any]:
    return match.observation(seat)


def hidden_cards_show(
    game: Mus, match: MusMatch, seat: int, rng: random.Random, observe: Observe, compared=None
) -> list[str]:
    """Where the encoding of ``seat`` changes with nothing but the other seats' hidden cards:
    their hands passed round now, then both copies played on by the same random words through
    the mus and discard phases (whose words never depend on the cards), until a reshuffle
    (which may deal the seat another's discard) or the betting. Empty when it never does.
    ``compared`` (a list) is told the phase of each state compared."""
    twin = _with_hands(match, _rotate_others(seat))
    assert twin.state.hands != match.state.hands  # the copy really holds other cards
    reshuffles = sum(e.kind == "reshuffle" for e in match.state.events)
    found = []
    for step in range(40):
        if sum(e.kind == "reshuffle" for e in match.state.events) > reshuffles:
            break
        mine, theirs = observe(match, seat), observe(twin, seat)
        if compared is not None:
            compared.append(match.state.phase)
        if not np.array_equal(game.encode(mine), game.encode(theirs)):
            found.append(f"step {step} in phase {match.state.phase}")
        elif observe is _observe:  # the observations are equal too: they encode alike
            assert mine == theirs
        if match.state.phase not in (MUS_DECISION, DISCARDING):
            break
        action = choose(rng, match.legal_actions(), patient=True)
        match.apply_action(action)
        twin.apply_action(action)
    return found


def _states_with_full_hands(game: Mus, seeds: range) -> Iterator[tuple[MusMatch, int]]:
    """Random states where every hand has its 4 cards, a seat each: per seed, one at a mus
    decision and one in the betting (when the match has them in its first 120 steps)."""
    for seed in seeds:
        rng = random.Random(1000 + seed)
        picked: dict[str, tuple[float, MusMatch]] = {}
        for match in playout(game, seed, 120):
            phase = match.state.phase
            if phase in (MUS_DECISION, BETTING) and all(len(h) == 4 for h in match.state.hands):
                mark = rng.random()  # the state with the smallest mark of its phase is kept
                if phase not in picked or mark < picked[phase][0]:
                    picked[phase] = (mark, match.clone())
        for _, match in picked.values():
            yield match, rng.randrange(4)


def test_other_seats_hidden_cards_never_change_a_seats_encoding():
    states = list(_states_with_full_hands(GAME, range(40)))
    assert len(states) >= 60
    compared: list[str] = []
    for match, seat in states:
        rng = random.Random(seat)
        assert not hidden_cards_show(GAME, match, seat, rng, _observe, compared)
    assert {MUS_DECISION, DISCARDING, BETTING} <= set(compared) and len(compared) > 150


def test_the_hidden_card_check_catches_a_leak():
    """Planted: an observation that shows the next seat's hand. The check must see it."""

    def leaky(match: MusMatch, seat: int) -> dict[str, Any]:
        obs = match.observation(seat)
        return {**obs, "hand": obs["hand"] + list(match.state.hands[(seat + 1) % 4])}

    match, seat = next(_states_with_full_hands(GAME, range(1)))
    assert hidden_cards_show(GAME, match, seat, random.Random(0), leaky)


def test_the_seats_own_cards_do_change_its_encoding():
    """The positive control: the same state with the seat's hand swapped for another's."""
    for match, seat in _states_with_full_hands(GAME, range(20)):
        other = (seat + random.Random(seat).randrange(1, 4)) % 4
        order = list(range(4))
        order[seat], order[other] = other, seat
        twin = _with_hands(match, order)
        mine, swapped = GAME.encode(match.observation(seat)), GAME.encode(twin.observation(seat))
        assert not np.array_equal(mine, swapped)
        hand = slice(OFFSETS["hand"], OFFSETS["hand"] + 40)
        assert sorted(np.flatnonzero(swapped[hand])) == sorted(match.state.hands[other])
        assert np.array_equal(np.delete(mine, np.r_[hand]), np.delete(swapped, np.r_[hand]))


# ------------------------------------------------------------ the summary against the engine


@pytest.mark.parametrize("name", ["registered", "joint_capped", "odd_amounts"])
def test_the_bets_summary_is_the_engines_betting(name):
    """The ``bets`` block, replayed from the public history, is each lance's real state."""
    game = VARIANTS[name]
    target = game.game.config.target
    checked = 0
    for seed in SEEDS:
        for match in playout(game, seed):
            state = match.state
            if state.is_terminal():
                continue
            seat = match.current_player()
            vector = game.encode(match.observation(seat))
            hand = vector[OFFSETS["hand"] : OFFSETS["hand"] + 40]
            assert sorted(np.flatnonzero(hand)) == sorted(state.hands[seat])
            for i, lance in enumerate(LANCES):
                at = OFFSETS["bets"] + i * BET_FEATURES
                got = vector[at : at + BET_FEATURES]
                engine = state.lances.get(lance)
                if engine is None:
                    assert not got.any()
                    continue
                proposer = engine.proposer
                expected = [
                    min(engine.pending, target) / target,
                    min(engine.accepted, target) / target,
                    float(engine.is_ordago),
                    float(engine.status in (QUERIDO, ORDAGO_QUERIDO)),
                ]
                assert list(got[1:5]) == pytest.approx(expected), (seed, lance)
                assert got[6] == (engine.status == NO_QUERIDO), (seed, lance)
                assert got[7] == (engine.status == PENDING), (seed, lance)
                ours = proposer is not None and proposer % 2 == seat % 2
                assert list(got[8:10]) == [ours, proposer is not None and not ours]
                checked += 1
    assert checked > 100
