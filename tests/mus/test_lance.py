"""The betting state machine against the worked sequences of specs/mus.md §8.3."""

import pytest

from sparring.mus.lance import (
    EN_PASO,
    ENVIDO,
    NO_QUERIDO,
    NO_QUIERO,
    ORDAGO,
    ORDAGO_QUERIDO,
    PASO,
    QUERIDO,
    QUIERO,
    SIN_ENVITE,
    SUBIR,
    Action,
    IllegalActionError,
    Lance,
)

ALL = (0, 1, 2, 3)


def play(lance, *steps):
    """steps: (seat, kind, amount) — checks the actor each time; returns immediate scores."""
    paid = []
    for seat, kind, *amount in steps:
        assert lance.actor() == seat, (seat, lance.actor())
        result = lance.apply(Action(kind, *amount))
        if result:
            paid.append(result)
    return paid


def test_1_negada():
    lance = Lance("grande", ALL)
    assert play(lance, (0, ENVIDO, 2), (1, NO_QUIERO), (3, NO_QUIERO)) == [(0, 1)]
    assert lance.status == NO_QUERIDO


def test_2_rejected_raise_pays_the_previous_stake():
    lance = Lance("grande", ALL)
    paid = play(lance, (0, ENVIDO, 2), (1, SUBIR, 3))
    assert (lance.pending, lance.accepted) == (5, 2)
    paid += play(lance, (2, NO_QUIERO), (0, NO_QUIERO))
    assert paid == [(1, 2)]


def test_3_a_pass_does_not_eliminate_and_either_partner_may_accept():
    lance = Lance("grande", ALL)
    play(lance, (0, PASO), (1, PASO), (2, ENVIDO, 2))
    assert lance.queue == [3, 1]  # rivals of seat 2 in order
    play(lance, (3, NO_QUIERO), (1, QUIERO))
    assert lance.status == QUERIDO and lance.pending == 2


def test_4_ordago_over_a_bet_then_refused():
    lance = Lance("chica", ALL)
    play(lance, (0, ENVIDO, 2), (1, ORDAGO))
    assert lance.accepted == 2 and lance.is_ordago
    assert play(lance, (2, NO_QUIERO), (0, NO_QUIERO)) == [(1, 2)]


def test_5_first_bet_ordago_refused_pays_one():
    lance = Lance("chica", ALL)
    assert play(lance, (0, ORDAGO), (1, NO_QUIERO), (3, NO_QUIERO)) == [(0, 1)]


@pytest.mark.parametrize(("option", "value"), [("previous_stake", 2), ("fem_plus_deje", 3)])
def test_6_pares_rejected_raise_and_the_fem_option(option, value):
    lance = Lance("pares", (0, 1, 3), rejected_raise=option)
    paid = play(lance, (0, ENVIDO, 2), (1, SUBIR, 5))
    assert (lance.pending, lance.accepted) == (7, 2)
    paid += play(lance, (0, NO_QUIERO))  # seat 2 has no pares: only seat 0 answers
    assert paid == [(1, value)]


def test_7_everyone_passes():
    lance = Lance("grande", ALL)
    play(lance, (0, PASO), (1, PASO), (2, PASO), (3, PASO))
    assert lance.status == EN_PASO


def test_participation_rules_and_illegal_actions():
    assert Lance("pares", (0, 2)).status == SIN_ENVITE and Lance("pares", (0, 2)).winner_team == 0
    assert Lance("pares", ()).status == "no_jugado"
    lance = Lance("grande", ALL)
    with pytest.raises(IllegalActionError, match="envido must be at least 2"):
        lance.apply(Action(ENVIDO, 1))
    with pytest.raises(IllegalActionError, match="quiero is not allowed now"):
        lance.apply(Action(QUIERO))
    assert lance.queue == list(ALL) and lance.status == "open"  # unchanged
    play(lance, (0, ORDAGO))
    with pytest.raises(IllegalActionError, match="subir.* is not allowed"):
        lance.apply(Action(SUBIR, 2))  # an órdago cannot be raised
    assert {a.kind for a in lance.legal_actions()} == {QUIERO, NO_QUIERO}
    play(lance, (1, QUIERO))
    assert lance.status == ORDAGO_QUERIDO
    with pytest.raises(IllegalActionError, match="closed"):
        lance.apply(Action(PASO))


def test_pair_joint_applies_the_higher_answer():
    lance = Lance("grande", ALL, response_model="pair_joint")
    play(lance, (0, ENVIDO, 2), (1, NO_QUIERO), (3, QUIERO))
    assert lance.status == QUERIDO
    raised = Lance("grande", ALL, response_model="pair_joint")
    play(raised, (0, ENVIDO, 2), (1, SUBIR, 2), (3, SUBIR, 4))
    assert raised.proposer == 3 and raised.pending == 6 and raised.queue == [0, 2]
    refused = Lance("grande", ALL, response_model="pair_joint")
    assert play(refused, (0, ENVIDO, 2), (1, NO_QUIERO), (3, NO_QUIERO)) == [(0, 1)]
