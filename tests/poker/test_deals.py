"""Deal generation: cards, stored equities and strengths against recomputation, the filter."""

import numpy as np
import pytest

from sparring.poker.bots import baseline_table, calling_station
from sparring.poker.deal_generation import DealSet, flop_is_reached, generate_deals
from sparring.poker.engine import play_deals
from sparring.poker.equity import equity
from sparring.poker.evaluator import evaluate7
from sparring.poker.preflop import class_index, load_table
from sparring.poker.rules import DEFAULT_CALL_FACTOR, DEFAULT_RAISE_FACTOR


@pytest.fixture(scope="module")
def six_seat_deals():
    return generate_deals(0, 12, n_seats=6, equity_trials=2000, seed=4)


def test_every_deal_has_distinct_cards(six_seat_deals):
    deals, _ = six_seat_deals
    cards = np.concatenate([deals.board, deals.holes.reshape(len(deals), -1)], axis=1)
    assert cards.shape[1] == 5 + 2 * 6
    assert all(len(set(row)) == 17 for row in cards.tolist())
    assert cards.max() < 52


def test_strengths_are_the_showdown_values(six_seat_deals):
    deals, _ = six_seat_deals
    for h in range(6):
        hands = np.concatenate([deals.board, deals.holes[:, h]], axis=1)
        np.testing.assert_array_equal(deals.strength[:, h], evaluate7(hands))


def test_preflop_equities_come_from_the_table(six_seat_deals):
    deals, _ = six_seat_deals
    table = load_table()
    for h in range(6):
        cls = class_index(deals.holes[:, h])
        np.testing.assert_array_equal(deals.equity[:, h, 0, :], table[cls][:, 1:6])


def test_stored_equities_agree_with_precise_recomputation(six_seat_deals):
    deals, _ = six_seat_deals
    assert deals.equity.min() >= 0 and deals.equity.max() <= 1
    rng = np.random.default_rng(0)
    for _ in range(12):
        d, h, street, k = rng.integers(12), rng.integers(6), rng.integers(1, 4), rng.integers(1, 6)
        stored = float(deals.equity[d, h, street, k - 1])
        precise = equity(
            deals.holes[d, h], deals.board[d, : street + 2], int(k), trials=100_000, seed=1
        )
        # The stored value is a 2,000-outcome estimate: allow four of its standard errors.
        se = max(np.sqrt(precise.equity * (1 - precise.equity) / 2000), 1e-3)
        assert abs(stored - precise.equity) < 4 * se + 4 * precise.stderr, (d, h, street, k)


def test_deals_do_not_depend_on_shard_boundaries(six_seat_deals):
    deals, _ = six_seat_deals
    a, _ = generate_deals(0, 5, n_seats=6, equity_trials=2000, seed=4)
    b, _ = generate_deals(5, 7, n_seats=6, equity_trials=2000, seed=4)
    joined = DealSet.concat([a, b])
    for field in ("deal_id", "board", "holes", "equity", "strength"):
        np.testing.assert_array_equal(getattr(joined, field), getattr(deals, field))


def test_arrow_round_trip(six_seat_deals):
    deals, _ = six_seat_deals
    back = DealSet.from_arrow(deals.to_arrow())
    for field in ("deal_id", "board", "holes", "equity", "strength"):
        np.testing.assert_array_equal(getattr(back, field), getattr(deals, field))


def _reaches_flop(preflop_equity, n, rf=DEFAULT_RAISE_FACTOR, cf=DEFAULT_CALL_FACTOR):
    eq = np.zeros((n, 4, n - 1), np.float32)
    for h in range(n):
        eq[h, 0, :] = preflop_equity[h]
    scratch = [np.empty(n, np.int64) for _ in range(4)]
    return flop_is_reached(
        eq,
        n,
        rf,
        cf,
        scratch[0],
        scratch[1],
        np.zeros((n, 540, 2), np.int8),
        np.zeros((n, 540), np.bool_),
        scratch[2],
        scratch[3],
    )


def test_flop_filter_on_constructed_deals():
    assert not _reaches_flop([0.01, 0.01, 0.01], 3)  # everyone folds to the big blind
    assert not _reaches_flop([0.01, 0.01, 0.9], 3)  # a lone strong hand takes the blinds
    assert _reaches_flop([0.01, 0.6, 0.6], 3)  # two good hands play on
    assert not _reaches_flop([0.40, 0.40], 2, cf=1.0 / 0.4 + 0.01)  # heads-up: both fold


def test_filter_rejects_and_every_kept_deal_passes():
    # Heads-up with a demanding call factor: many candidates never see a flop.
    deals, rejected = generate_deals(
        0, 40, n_seats=2, equity_trials=10, seed=1, call_factor=1.3, raise_factor=1.6
    )
    assert rejected.sum() > 0
    for d in range(len(deals)):
        assert _reaches_flop(deals.equity[d, :, 0, 0], 2, 1.6, 1.3)


def test_calling_station_loses_to_tight_aggressive():
    deals, _ = generate_deals(0, 300, n_seats=10, equity_trials=200, seed=11)
    table = np.concatenate([calling_station()[None], baseline_table("tight_aggressive", 9)])
    result = play_deals(deals.equity, deals.strength, table)
    per_deal = result.net_per_deal[:, 0] / 2 / 100 * 100  # bb/100 of each deal's 100 hands
    mean = per_deal.mean()
    half_width = 1.96 * per_deal.std(ddof=1) / np.sqrt(len(per_deal))
    assert mean + half_width < 0, (mean, half_width)
