"""The league: both seatings, antisymmetric edges, Bradley–Terry ratings, the pair cache."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sparring.champions.league import baseline_entrant, play_league
from sparring.ga.round_robin import bradley_terry, champion_entrant, deal_edges, play_pair, rate
from sparring.poker.bots import calling_station, tight_aggressive
from sparring.poker.deal_generation import generate_deals
from sparring.poker.preflop import load_table
from sparring.runtime.storage.location import locate

SEATS = 6


@pytest.fixture(scope="module")
def deals():
    made, _ = generate_deals(0, 150, SEATS, 80, 5, load_table(None), 1.6, 1.1)
    return made


def test_a_baseline_beats_the_calling_station_in_both_seatings(deals):
    tag = baseline_entrant("tight_aggressive", SEATS, 0)
    station = baseline_entrant("calling_station", SEATS, 0)
    pair = play_pair(tag, station, deals.equity, deals.strength, 1.6, 1.1)
    assert pair.shape == (150, 2)
    assert pair[:, 0].mean() > 0 > pair[:, 1].mean()  # TAG wins alone, the station loses alone
    flipped = play_pair(station, tag, deals.equity, deals.strength, 1.6, 1.1)
    np.testing.assert_allclose(flipped, pair[:, ::-1])  # the same games, seen from B
    edges = deal_edges(pair)
    ratings = rate(["tight_aggressive", "calling_station"], {(0, 1): edges}, bootstrap=50)
    assert ratings.rating[0] > 0 > ratings.rating[1] and ratings.low[0] > ratings.high[1]


def test_a_chromosome_entrant_is_its_own_table():
    e = champion_entrant("v1", tight_aggressive(), SEATS)
    assert e.table.shape == (SEATS - 1, 540, 2) and (e.table == e.lone).all()
    assert e.digest == champion_entrant("renamed", tight_aggressive(), SEATS).digest
    assert e.digest != champion_entrant("v2", calling_station(), SEATS).digest


def test_equal_players_rate_equal_and_a_clear_order_is_recovered():
    assert np.allclose(bradley_terry(np.full((3, 3), 10.0) * (1 - np.eye(3))), 0.0)
    # true strengths 4 : 2 : 1 -> expected wins out of 1000 games per pair
    p = np.array([4.0, 2.0, 1.0])
    wins = 1000 * p[:, None] / (p[:, None] + p[None, :]) * (1 - np.eye(3))
    r = bradley_terry(wins)
    expected = 400 * np.log10(p / np.exp(np.log(p).mean()))
    np.testing.assert_allclose(r, expected, atol=1.0)  # the prior moves it a little


@given(st.permutations(range(4)), st.integers(0, 2**31))
def test_ratings_do_not_depend_on_the_order_of_the_entrants(order, seed):
    rng = np.random.default_rng(seed)
    names = ["a", "b", "c", "d"]
    skill = rng.normal(0, 20, 4)
    per_deal = {
        (i, j): skill[i] - skill[j] + rng.normal(0, 40, 60)
        for i in range(4)
        for j in range(i + 1, 4)
    }
    base = rate(names, per_deal, bootstrap=20, seed=3)
    pos = {old: new for new, old in enumerate(order)}
    moved = {}
    for (i, j), e in per_deal.items():
        a, b = pos[i], pos[j]
        moved[(a, b) if a < b else (b, a)] = e if a < b else -e
    again = rate([names[k] for k in order], moved, bootstrap=20, seed=3)
    for k, name in enumerate(names):
        m = again.names.index(name)
        assert again.rating[m] == pytest.approx(base.rating[k], abs=1e-6)
        assert again.low[m] == pytest.approx(base.low[k], abs=1e-6)
        assert again.high[m] == pytest.approx(base.high[k], abs=1e-6)


def test_the_cache_is_reused_when_an_entrant_is_added(ray_session, deals, tmp_path):
    field = [
        baseline_entrant("calling_station", SEATS, 0),
        baseline_entrant("maniac", SEATS, 0),
        champion_entrant("v1", tight_aggressive(), SEATS),
    ]

    def league(entrants):
        return play_league(
            entrants,
            deals,
            "dealset",
            locate(tmp_path),  # the pair cache: a Location, made once by its caller
            1.6,
            1.1,
            bootstrap=20,
            seed=0,
        )

    first = league(field)
    assert (first.played, first.cached) == (3, 0)
    second = league([*field, baseline_entrant("random", SEATS, 0)])
    assert (second.played, second.cached) == (3, 3)  # only the newcomer's pairs
    assert second.edges[(0, 1)] == first.edges[(0, 1)]
    # renamed and reordered entrants hit the same files (keyed by what they play)
    renamed = [champion_entrant("v7", tight_aggressive(), SEATS), *field[:2]]
    third = league(renamed)
    assert third.played == 0 and third.edges[(1, 2)] == first.edges[(0, 1)]
    assert third.edges[(0, 1)][0] == pytest.approx(-first.edges[(0, 2)][0])
    # a damaged file is played again, not trusted
    victim = sorted(tmp_path.glob("*.npy"))[0]
    victim.write_bytes(b"garbage")
    fourth = league(field)
    assert fourth.played == 1 and fourth.edges == first.edges
    # one flipped exponent bit still parses as a valid array (a mean edge of -1.9e155 was
    # used): its digest no longer matches, so the pair is played again
    victim = sorted(tmp_path.glob("*.npy"))[1]
    data = bytearray(victim.read_bytes())
    data[-2] ^= 0x40  # the high exponent bits of the last float64 (little-endian)
    victim.write_bytes(bytes(data))
    assert np.isfinite(np.load(victim)).all()  # the damage is invisible to a shape check
    fifth = league(field)
    assert fifth.played == 1 and fifth.edges == first.edges
