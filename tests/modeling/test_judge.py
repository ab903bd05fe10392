"""The judge: win probability against Monte Carlo, decisions at their thresholds."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sparring.modeling import judge


def _monte_carlo(q, w, partner_max=1.0, n=200_000, seed=0):
    rng = np.random.default_rng(seed)
    partner, their_partner = rng.random(n) * partner_max, rng.random(n)
    weak = rng.random(n) < w
    bettor = np.where(weak, rng.random(n) * 0.4, 0.4 + rng.random(n) * 0.6)
    return float(np.mean(np.maximum(q, partner) > np.maximum(bettor, their_partner)))


@given(st.floats(0, 1), st.floats(0, 1), st.sampled_from([1.0, 0.7, 0.3]))
def test_win_probability_matches_monte_carlo(q, w, partner_max):
    got = judge.win_probability(q, w, partner_max)
    assert got == pytest.approx(_monte_carlo(q, w, partner_max, n=40_000), abs=0.012)


def test_win_probability_reference_points():
    # a uniform opponent (w = 0.4) and a uniform partner: P = q²·q/2... checked by hand at 0, 1
    assert judge.win_probability(1.0, 0.4) == pytest.approx(1.0)
    assert judge.win_probability(0.0, 0.4) == pytest.approx(1 / 3)  # P(U1 > max(U2, U3))
    assert judge.win_probability(0.5, 1.0) > judge.win_probability(0.5, 0.0)  # bluffs help


def test_answer_accepts_exactly_above_the_break_even():
    # stake 10, refusal 1: accept when (2p - 1)·10 > -1, i.e. p > 0.45
    assert judge.answer(0.46, 10, 1).act == "quiero"
    assert judge.answer(0.44, 10, 1).act == "no_quiero"
    t = judge.accept_threshold(0.5, 10, 1)
    assert judge.win_probability(t, 0.5) == pytest.approx(0.45, abs=1e-6)


def test_a_higher_bluff_estimate_accepts_weaker_hands():
    assert judge.accept_threshold(0.8, 10, 1) < judge.accept_threshold(0.2, 10, 1)


def test_open_bets_strong_hands_and_bluffs_into_folders():
    strong = judge.open_bet(judge.win_probability(0.95, 0.3), judge.win_probability(0.95, 0.4), 0.5)
    assert strong.act == "envido"
    weak_vs_station = judge.open_bet(
        judge.win_probability(0.05, 0.3), judge.win_probability(0.05, 0.4), fold=0.0, bet=10
    )
    assert weak_vs_station.act == "paso"
    weak_vs_folder = judge.open_bet(
        judge.win_probability(0.05, 0.3), judge.win_probability(0.05, 0.4), fold=0.95
    )
    assert weak_vs_folder.act == "envido"
