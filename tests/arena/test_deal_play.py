"""Agents on a deal set's deals (the league's pairs with an agent entrant): fed chromosomes on
both sides, every hand is the reference engine's hand for the same rotation; a faulty agent
pays the most a hand can cost and is counted."""

from __future__ import annotations

import numpy as np
import pytest

from sparring.arena.agents_on_deals import (
    MAX_HAND_LOSS,
    agent_side,
    chromosome_side,
    play_pair,
)
from sparring.ga.fitness import bb_per_100
from sparring.poker.bots import baseline, baseline_table, random_player
from sparring.poker.deal_generation import generate_deals
from sparring.poker.table import play_hand_reference, seating

FACTORS = (1.6, 1.1)


def reference_lone(deals, d: int, lone: np.ndarray, table: np.ndarray) -> float:
    """The lone player's chips over rotations ``seating(n, a * n)`` by the reference engine."""
    n = deals.n_seats
    players = np.concatenate([lone[None], table])
    chips = 0.0
    for a in range(n):
        seat_hole, seat_player = seating(n, a * n)
        trace = play_hand_reference(
            deals.equity[d], deals.strength[d], seat_hole, seat_player, players, *FACTORS
        )
        chips += trace.net_by_seat[a]  # the lone player (player 0) sits in seat a
    return chips


@pytest.mark.parametrize("seats", [2, 3, 6])
def test_chromosomes_on_both_sides_play_the_reference_engines_hands(seats):
    deals, _ = generate_deals(0, 12, n_seats=seats, equity_trials=200, seed=seats)
    rng = np.random.default_rng(seats)
    champion = random_player(rng)
    mixed = baseline_table("mixed", seats - 1, seed=3)
    a = chromosome_side("champion", champion, np.repeat(champion[None], seats - 1, 0), *FACTORS)
    b = chromosome_side("mixed", baseline("tight_aggressive"), mixed, *FACTORS)
    out, faults = play_pair(a, b, deals.deal_id, deals.holes, deals.board, deals.equity)
    assert faults.count == {}
    copies = np.repeat(champion[None], seats - 1, 0)
    for d in range(len(deals)):
        a_alone = reference_lone(deals, d, champion, mixed)
        b_alone = reference_lone(deals, d, baseline("tight_aggressive"), copies)
        assert out[d] == pytest.approx(bb_per_100(np.array([a_alone, b_alone]), seats))
    assert np.abs(out).sum() > 0  # chips changed hands: the comparison is not of zeros


class Crasher:
    """Raises on its first decision of every hand; counts the hands it was asked to play."""

    asked = 0

    def act(self, observation, legal):
        Crasher.asked += 1
        raise RuntimeError("no")


class Caller:
    def act(self, observation, legal):
        return "call"


def test_an_agent_that_fails_pays_the_most_a_hand_costs_and_is_counted():
    """Every hand of a crasher's is a forfeit at the most a hand costs; after three in a row
    it is withdrawn, its remaining hands forfeited without being played."""
    Crasher.asked = 0
    seats = 3
    deals, _ = generate_deals(0, 4, n_seats=seats, equity_trials=100, seed=1)
    crasher = agent_side("crasher", Crasher, seats)
    caller = agent_side("caller", Caller, seats)
    out, faults = play_pair(crasher, caller, deals.deal_id, deals.holes, deals.board, deals.equity)
    # every hand with the crasher alone: it forfeits at its first decision; with the crasher
    # as the table, a crasher acts in every hand too: the lone caller gains its share
    assert faults.count["crasher"] == 2 * seats * len(deals)
    assert "caller" not in faults.count
    assert faults.first["crasher"].startswith("crash: ")
    assert faults.first["crasher"].endswith("; withdrawn after 3 in a row")
    assert faults.withdrawn == {"crasher"} and Crasher.asked == 3  # then never asked again
    assert np.allclose(out[:, 0], bb_per_100(-MAX_HAND_LOSS * seats, seats))
    assert np.allclose(out[:, 1], bb_per_100(MAX_HAND_LOSS / (seats - 1) * seats, seats))
