"""Mus through the game API (sparring.mus.game): words for actions, plain JSON observations."""

import json

import pytest

from sparring.game_api import IllegalActionError
from sparring.mus.engine import DISCARDING
from sparring.mus.game import GAME, action_text, parse_action
from sparring.mus.lance import Action
from sparring.mus.lance import IllegalActionError as MusIllegalActionError


@pytest.mark.parametrize(
    "action", [Action("mus"), Action("discard", 5), Action("envido", 12), Action("no_quiero")]
)
def test_action_words_round_trip(action):
    assert parse_action(action_text(action)) == action


@pytest.mark.parametrize("word", ["envido", "mus(2)", "Mus", "discard()", "órdago", 3, None])
def test_what_is_no_word_is_refused(word):
    with pytest.raises(IllegalActionError):
        parse_action(word)


def test_the_engine_error_is_the_game_api_error():
    assert issubclass(MusIllegalActionError, IllegalActionError)


def test_a_match_plays_by_words_and_shows_plain_json():
    match = GAME.new_state(3)
    assert match.legal_actions() == ["mus", "no_mus"]
    for _ in range(4):
        match.apply_action("mus")
    assert match.state.phase == DISCARDING and "discard(15)" in match.legal_actions()
    seat = match.current_player()
    obs = match.observation(seat)
    assert json.loads(json.dumps(obs)) == obs and obs["phase"] == "discard"
    assert obs["hand"] == list(match.state.hands[seat])
    assert ["cards", seat, obs["hand"]] in obs["history"]
    assert all(e[0] != "cards" or e[1] == seat for e in obs["history"])
    twin = match.clone()
    twin.apply_action("discard(15)")
    assert match.current_player() == seat and len(match.state.hands[seat]) == 4
