"""Every §0 option has a test that shows its effect (those not covered elsewhere)."""

import pytest

from sparring.mus.cards import parse_faces
from sparring.mus.engine import DISCARD, MUS, NO_MUS, DiscardOrder, MusConfig, MusGame
from sparring.mus.lance import ENVIDO, PASO, Action, IllegalActionError, Lance
from sparring.mus.scoring import Count, Table, count_hand
from sparring.mus.strength import multisets


def test_ocho_reyes_changes_the_multisets_and_readings():
    assert len(multisets(True)) == 330 and len(multisets(False)) == 715
    t8 = Table((parse_faces("3 3 2 2"),) * 4, 0, ocho_reyes=True)
    t4 = Table((parse_faces("3 3 2 2"),) * 4, 0, ocho_reyes=False)
    assert t8.key("grande", 0) == (12, 12, 1, 1) and t4.key("grande", 0) == (3, 3, 2, 2)


@pytest.mark.parametrize(("order", "first"), [("mano_first", 0), ("postre_first", 3)])
def test_discard_order(order, first):
    state = MusGame(MusConfig(discard_order=order)).new_initial_state(1)
    for _ in range(4):
        state.apply_action(Action(MUS))
    assert (state.current_player() - state.mano) % 4 == first


def test_target_and_end_on_target_immediately():
    table = Table(tuple(parse_faces(h) for h in ("R R 7 6", "A A A 4", "C S 6 5", "R 7 6 5")), 0)

    def lances():
        g, c = Lance("grande", (0, 1, 2, 3)), Lance("chica", (0, 1, 2, 3))
        for lance in (g, c):
            while not lance.closed:
                lance.apply(Action(PASO))
        return {"grande": g, "chica": c}

    immediate = count_hand(table, lances(), Count([29, 20], target=30))
    assert immediate.winner == 0 and immediate.entries == [("grande", 0, 1)]
    later = count_hand(table, lances(), Count([29, 29], target=30, immediate=False))
    assert later.scores == [30, 30] and later.winner is None  # equal: not settled in this hand


def test_treinta_y_una_real():
    hands = tuple(parse_faces(h) for h in ("R C S A", "7 7 7 R", "4 4 5 A", "6 6 5 4"))
    assert Table(hands, 0).card_winner("juego") == 0  # plain 31s: the mano's wins
    assert Table(hands, 0, treinta_y_una_real=True).card_winner("juego") == 1


def test_min_envido_and_min_raise():
    lance = Lance("grande", (0, 1, 2, 3), min_envido=3, min_raise=4)
    with pytest.raises(IllegalActionError, match="at least 3"):
        lance.apply(Action(ENVIDO, 2))
    lance.apply(Action(ENVIDO, 3))
    with pytest.raises(IllegalActionError, match="at least 4"):
        lance.apply(Action("subir", 3))


def test_juegos_per_vaca_and_vacas_per_match_end_the_match():
    short = MusGame(MusConfig(juegos_per_vaca=1, vacas_per_match=1)).new_initial_state(2)
    short.apply_action(Action(NO_MUS))
    short.apply_action(Action("ordago"))
    short.apply_action(Action("quiero"))
    assert short.is_terminal() and sum(short.vacas) == 1
    longer = MusGame(MusConfig(juegos_per_vaca=3)).new_initial_state(2)
    longer.apply_action(Action(NO_MUS))
    longer.apply_action(Action("ordago"))
    longer.apply_action(Action("quiero"))
    assert not longer.is_terminal() and sum(longer.juegos) == 1


def test_max_mus_rounds_safety_cap_cuts():
    state = MusGame(MusConfig(max_mus_rounds=1)).new_initial_state(3)
    for _ in range(4):
        state.apply_action(Action(MUS))
    for _ in range(4):
        state.apply_action(Action(DISCARD, 1))
    state.apply_action(Action(MUS))  # capped: treated as a cut
    assert state.phase == "betting"
    assert any(e.detail == "safety cap" for e in state.events)


def test_first_hand_mus_corrido_makes_the_cutter_mano():
    state = MusGame(MusConfig(first_hand_mus_corrido=True)).new_initial_state(4)
    cutter = (state.mano + 2) % 4
    state.apply_action(Action(MUS))
    state.apply_action(Action(MUS))
    state.apply_action(Action(NO_MUS))
    assert state.mano == cutter and state.current_player() == cutter


def test_cap_bets_limits_the_amounts():
    state = MusGame(MusConfig(cap_bets=True)).new_initial_state(5)
    state.scores[:] = [35, 35]
    state.apply_action(Action(NO_MUS))
    amounts = [a.amount for a in state.legal_actions() if a.kind == ENVIDO]
    assert max(amounts) == 5
    with pytest.raises(IllegalActionError, match="capped"):
        state.apply_action(Action(ENVIDO, 6))


def test_reveal_at_end_can_be_turned_off():
    for reveal in (True, False):
        state = MusGame(MusConfig(reveal_at_end=reveal)).new_initial_state(6)
        state.apply_action(Action(NO_MUS))
        state.apply_action(Action("ordago"))
        state.apply_action(Action("quiero"))
        assert any(e.kind == "reveal" for e in state.events) == reveal


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("discard_order", "postre-first", "expected one of mano_first, postre_first"),
        ("reshuffle", "all", "expected one of all_discards, keep_last_players_own"),
        ("response_model", "joint", "expected one of sequential, pair_joint"),
        ("target", 0, "target=0 is not allowed"),
        ("max_mus_rounds", 0, "max_mus_rounds=0"),
    ],
)
def test_a_misspelt_or_impossible_option_is_refused(field, value, message):
    with pytest.raises(ValueError, match=message):
        MusConfig(**{field: value})


def test_options_given_as_text_become_their_enums():
    config = MusConfig(discard_order="postre_first")
    assert config.discard_order is DiscardOrder.postre_first
    assert config.discard_order == "postre_first"


@pytest.mark.parametrize(
    ("rates", "message"),
    [
        ({"bluff_frequency": 5.0}, "bluff_frequency=5.0 is not allowed"),
        ({"aggression": float("nan")}, "aggression=nan is not allowed"),
        ({"bet_size": 0}, "bet_size=0 is not allowed"),
    ],
)
def test_synthetic_player_rates_are_probabilities(rates, message):
    from sparring.mus.players import SyntheticPlayer

    with pytest.raises(ValueError, match=message):
        SyntheticPlayer.with_rates(**rates)
