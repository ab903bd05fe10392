"""The promotion rule: mean, standard error, z, the interval, the decision; the paired edges."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sparring.ga.promotion import decide, paired_edges
from sparring.poker.bots import calling_station, tight_aggressive
from sparring.poker.deal_generation import generate_deals
from sparring.poker.preflop import load_table

SEATS = 6


def test_known_values_by_hand():
    # mean 3; sd (ddof 1) sqrt(10 / 4); se = sd / sqrt(5) = sqrt(1/2); z(0.95) = 1.6448536...
    p = decide(np.array([1.0, 2.0, 3.0, 4.0, 5.0]), 0.95)
    assert p.mean == 3.0 and p.deals == 5 and p.confidence == 0.95
    assert p.se == pytest.approx(math.sqrt(0.5))
    assert p.z == pytest.approx(1.6448536269514722)
    assert p.low == pytest.approx(3.0 - 1.6448536269514722 * math.sqrt(0.5))  # 1.836913
    assert p.high == pytest.approx(4.163087, abs=1e-6)
    assert p.promote and p.decision == "promoted"
    # at 0.975, z = 1.959964: the lower bound drops to 1.614096 (still promoted)
    wider = decide(np.array([1.0, 2.0, 3.0, 4.0, 5.0]), 0.975)
    assert wider.low == pytest.approx(1.614096, abs=1e-6) and wider.promote


def test_no_edge_on_average_is_kept():
    # mean 0; sd sqrt(4/3); se = sqrt(1/3) = 0.57735; low = -1.6448536 * 0.57735 = -0.949657
    p = decide(np.array([-1.0, 1.0, -1.0, 1.0]), 0.95)
    assert p.mean == 0.0 and p.low == pytest.approx(-0.949657, abs=1e-6)
    assert not p.promote and p.decision == "kept"


def test_one_deal_says_nothing_and_a_constant_edge_says_everything():
    one = decide(np.array([7.0]), 0.95)
    assert one.se == math.inf and one.low == -math.inf and one.high == math.inf
    assert not one.promote
    constant = decide(np.array([2.0, 2.0, 2.0]), 0.9999)
    assert constant.se == 0.0 and constant.low == constant.high == 2.0 and constant.promote
    assert not decide(np.zeros(10), 0.95).promote  # a lower bound of exactly 0 is not above 0


def test_the_metrics_as_logged():
    p = decide(np.array([1.0, 2.0, 3.0, 4.0, 5.0]), 0.95)
    assert p.metrics() == {
        "edge_bb100": p.mean,
        "edge_low": p.low,
        "edge_high": p.high,
        "edge_se": p.se,
        "confidence": 0.95,
        "heldout_deals": 5,
        "promoted": 1.0,
    }


@given(
    st.lists(st.floats(-1e4, 1e4), min_size=2, max_size=60),
    st.floats(0.5, 0.9999),
    st.floats(0.5, 0.9999),
)
def test_the_interval_holds_the_mean_and_widens_with_confidence(edges, a, b):
    lower, higher = sorted((a, b))
    narrow, wide = decide(np.array(edges), lower), decide(np.array(edges), higher)
    assert narrow.low <= narrow.mean <= narrow.high
    assert wide.low <= narrow.low and narrow.high <= wide.high
    assert narrow.high - narrow.mean == pytest.approx(narrow.mean - narrow.low, abs=1e-6)
    assert narrow.promote == (narrow.low > 0)
    assert wide.promote <= narrow.promote  # more confidence never promotes more


@pytest.fixture(scope="module")
def deals():
    made, _ = generate_deals(0, 40, SEATS, 60, 5, load_table(None), 1.6, 1.1)
    return made


def test_paired_edges_are_zero_for_the_same_player_and_antisymmetric(deals):
    args = (deals.equity, deals.strength, 1.6, 1.1, 0)
    same = paired_edges(tight_aggressive(), tight_aggressive(), *args)
    assert same.shape == (40,) and not same.any()
    assert not decide(same, 0.95).promote
    ab = paired_edges(tight_aggressive(), calling_station(), *args)
    ba = paired_edges(calling_station(), tight_aggressive(), *args)
    np.testing.assert_allclose(ab, -ba)
