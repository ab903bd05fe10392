"""Eleusis's bridge methods (``Eleusis.actions``, ``observation_shape``, ``encode``:
sparring.eleusis.encoding) checked against the game itself over random games: every legal card is
in the action set once, at its card index; every observation encodes to the declared shape with
what the game really answered; and the encoding is a function of the observation alone (equal
observations of games with other hidden decks and draws encode alike, different ones apart)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import numpy as np
import pytest

from sparring.eleusis.cards import N_CARDS, card_name
from sparring.eleusis.decks import make_deck
from sparring.eleusis.encoding import OFFSETS, SIZE
from sparring.eleusis.game import CARDS, GAME, Eleusis, EleusisPlay

VARIANTS = {
    "registered": GAME,  # harma 100, cap 2,000: played for MAX_STEPS guesses at most
    "point_mass": Eleusis("point_mass", harma=10, cap=200),  # a knowing guess finishes it
    "uniform_short": Eleusis("uniform", harma=3, cap=30),  # mostly ends at the cap
    "with_variant": GAME.with_variant("deck=spike:alpha=0.9;harma=5;cap=60"),
}
SEEDS = range(12)
MAX_STEPS = 250


def playout(game: Eleusis, seed: int) -> Iterator[EleusisPlay]:
    """The states of one game (each before its guess): on even seeds half the guesses are the
    deck's likeliest card (the referee's truth, so that games finish too), else random."""
    rng = random.Random(seed)
    best = card_name(int(make_deck(game.deck, seed).argmax()))
    play = game.new_state(seed)
    for _ in range(MAX_STEPS):
        yield play
        if play.is_terminal():
            return
        knowing = seed % 2 == 0 and rng.random() < 0.5
        play.apply_action(best if knowing else rng.choice(play.legal_actions()))


def test_the_sizes():
    assert GAME.actions() == CARDS and len(CARDS) == N_CARDS == 52
    assert GAME.observation_shape() == (SIZE,) == (63,)


@pytest.mark.parametrize("name", VARIANTS)
def test_every_legal_action_is_in_the_action_set_once_at_its_card_index(name):
    game = VARIANTS[name]
    actions = game.actions()
    assert len(set(actions)) == len(actions) == N_CARDS
    assert all(actions[c] == card_name(c) for c in range(N_CARDS))
    ends = set()
    for seed in SEEDS:
        for play in playout(game, seed):
            legal = play.legal_actions()
            assert len(set(legal)) == len(legal) and set(legal) <= set(actions)
            if play.is_terminal():
                ends.add("finished" if play.game.finished else "dnf")
    if name != "registered":
        assert ends, "no playout reached the end of a game"
    if name == "point_mass":
        assert ends == {"finished", "dnf"}


@pytest.mark.parametrize("name", VARIANTS)
def test_every_observation_encodes_to_the_shape_with_what_the_game_answered(name):
    game = VARIANTS[name]
    for seed in SEEDS:
        for play in playout(game, seed):
            obs = play.observation(0)
            text = json.dumps(obs, sort_keys=True)
            vector = game.encode(obs)
            assert isinstance(vector, np.ndarray) and vector.dtype == np.float32
            assert vector.shape == game.observation_shape() and np.isfinite(vector).all()
            assert vector.min() >= -1.0 and vector.max() <= 1.0
            assert json.dumps(obs, sort_keys=True) == text, "encode changed its input"
            assert np.array_equal(game.encode(json.loads(text)), vector)
            # against the truth of the game, not of the observation
            guess = vector[OFFSETS["guess"] : OFFSETS["guess"] + N_CARDS]
            feedback = vector[OFFSETS["feedback"] : OFFSETS["feedback"] + 5]
            last = play.last
            if last is None:
                assert not guess.any() and list(feedback) == [1, 0, 0, 0, 0]
            else:
                assert list(np.flatnonzero(guess)) == [last.guess]
                assert list(np.flatnonzero(feedback)) == [1 + last.code]
            harma = vector[OFFSETS["harma"]]
            assert (harma > 0) == (play.game.harma > 0) and (harma < 0) == (play.game.harma < 0)
            over = vector[OFFSETS["over"] : OFFSETS["over"] + 2]
            assert list(over) == [play.game.finished, play.game.dnf]
            assert vector[OFFSETS["guesses"]] == pytest.approx(play.game.guesses / play.game.cap)


def test_equal_observations_of_other_hidden_games_encode_alike_and_others_apart():
    """Across games with other decks and draws, an observation met again (the same harma,
    guesses and last feedback) encodes to the same array; different ones never collide."""
    seen: dict[str, tuple[bytes, int]] = {}
    across = 0
    for name in ("registered", "uniform_short", "with_variant"):
        game = VARIANTS[name]
        by_array: dict[bytes, str] = {}
        for seed in SEEDS:
            for play in playout(game, seed):
                obs = play.observation(0)
                key = f"{name}: {json.dumps(obs, sort_keys=True)}"
                vector = game.encode(obs).tobytes()
                if key in seen:
                    assert seen[key][0] == vector, key
                    across += seen[key][1] != seed
                seen[key] = (vector, seed)
                assert by_array.setdefault(vector, key) == key, "two observations, one array"
    assert across > 20  # the same observation came from games with other hidden decks


def test_the_drawn_card_does_not_show():
    """Two copies of a game differing only in the (hidden) card drawn last, and the next draws:
    the observations and so the encodings are equal."""
    game = Eleusis("uniform", harma=50, cap=100)
    play = game.new_state(3)
    for card in ("H 12", "C 1", "S 7", "D 2"):
        play.apply_action(card)
        last = play.last
        assert last is not None
        if last.suit_right and last.number_right:
            continue  # a "both right" names the card: nothing is hidden then
        twin = play.clone()
        others = [
            c
            for c in range(N_CARDS)
            if c != twin.game.drawn
            and (c // 13 == last.guess // 13) == last.suit_right
            and (c % 13 == last.guess % 13) == last.number_right
        ]
        twin.game.drawn = others[0]
        twin.game.state = np.uint64(int(twin.game.state) ^ 0x9E3779B97F4A7C15)
        assert twin.observation(0) == play.observation(0)
        assert np.array_equal(game.encode(twin.observation(0)), game.encode(play.observation(0)))
