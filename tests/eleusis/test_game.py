"""Eleusis as a one-player game of the game API (sparring.eleusis.game)."""

import pytest

from sparring.eleusis.cards import card_name
from sparring.eleusis.decks import make_deck
from sparring.eleusis.game import CARDS, Eleusis
from sparring.game_api import TERMINAL, IllegalActionError


def test_the_cards_are_the_line_protocols_words():
    assert CARDS[0] == "C 1" and CARDS[-1] == "S 13" and len(set(CARDS)) == 52


def test_a_scientist_who_knows_the_card_finishes_and_scores_minus_its_guesses():
    game = Eleusis("point_mass", harma=10, cap=100)
    play = game.new_state(4)
    card = card_name(int(make_deck("point_mass", 4).argmax()))
    assert play.current_player() == 0 and play.legal_actions() == list(CARDS)
    while not play.is_terminal():
        play.apply_action(card)
    obs = play.observation(0)
    assert obs["finished"] and not obs["dnf"] and obs["guesses"] == 4  # 10 harma, -3 a guess
    assert obs["last"] == {"guess": card, "suit_right": True, "number_right": True}
    assert play.returns() == [-4.0] and play.current_player() == TERMINAL


def test_the_cap_ends_a_game_unfinished():
    play = Eleusis("point_mass", harma=10, cap=5).new_state(4)
    wrong = next(c for c in CARDS if c != card_name(int(make_deck("point_mass", 4).argmax())))
    for _ in range(5):
        play.apply_action(wrong)
    assert play.is_terminal() and play.observation(0)["dnf"] and play.returns() == [-5.0]
    with pytest.raises(IllegalActionError, match="over"):
        play.apply_action(wrong)


def test_a_seed_is_a_game_and_a_clone_goes_on_the_same():
    a, b = Eleusis().new_state(8), Eleusis().new_state(8)
    for card in ("H 12", "C 1", "S 7"):
        twin = a.clone()
        a.apply_action(card)
        b.apply_action(card)
        twin.apply_action(card)
        assert a.observation(0) == b.observation(0) == twin.observation(0)
    with pytest.raises(IllegalActionError, match="not a card"):
        a.apply_action(12)
