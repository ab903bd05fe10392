"""Equity against reference values, exact enumeration, tie rules and determinism."""

import numpy as np
import pytest

from sparring.poker.cards import parse_cards
from sparring.poker.equity import combinations_count, equity, equity_batch
from sparring.poker.evaluator import evaluate7


@pytest.mark.parametrize(
    ("opponents", "reference"),
    [(1, 0.6706), (9, 0.2072)],
)
def test_reference_values_within_three_standard_errors(opponents, reference):
    r = equity("AsKs", opponents=opponents, trials=400_000, seed=11)
    assert not r.exact
    assert abs(r.equity - reference) < 3 * r.stderr, r


def test_exact_enumeration_matches_brute_force_on_the_river():
    hero, board = parse_cards("QhJh"), parse_cards("Th9h2c3d4s")
    r = equity(hero, board, opponents=1)
    assert r.exact and r.trials == 990 and r.stderr == 0
    rest = [c for c in range(52) if c not in set(hero) | set(board)]
    pairs = np.array([(a, b) for i, a in enumerate(rest) for b in rest[i + 1 :]], dtype=np.uint8)
    mine = evaluate7(np.concatenate([hero, board])[None, :])[0]
    theirs = evaluate7(np.concatenate([np.tile(board, (len(pairs), 1)), pairs], axis=1))
    expected = (np.sum(mine > theirs) + 0.5 * np.sum(mine == theirs)) / len(pairs)
    assert r.equity == pytest.approx(expected, abs=1e-12)
    assert r.win == pytest.approx(np.mean(mine > theirs), abs=1e-12)


def test_exact_agrees_with_monte_carlo():
    exact = equity("AsKs", "Ah7c2d", opponents=1, method="exact")
    assert exact.exact and exact.trials == combinations_count(3, 1) == 1081 * 990
    mc = equity("AsKs", "Ah7c2d", opponents=1, method="monte_carlo", trials=300_000, seed=5)
    assert abs(mc.equity - exact.equity) < 3 * mc.stderr
    two = equity("8c8d", "Ks9h4c2s", opponents=2, method="exact")
    mc2 = equity("8c8d", "Ks9h4c2s", opponents=2, method="monte_carlo", trials=300_000, seed=6)
    assert abs(mc2.equity - two.equity) < 3 * mc2.stderr


@pytest.mark.parametrize("opponents", [1, 2, 3, 5])
def test_a_k_way_tie_pays_one_kth(opponents):
    # A royal flush on the board: every player plays the board, so every outcome is a tie.
    r = equity("2c3d", "AsKsQsJsTs", opponents=opponents, trials=20_000)
    assert r.win == 0 and r.tie == 1
    assert r.equity == pytest.approx(1 / (opponents + 1), abs=1e-12)


def test_same_seed_same_result_and_seeds_differ():
    a = equity("7h7d", opponents=3, trials=50_000, seed=1)
    b = equity("7h7d", opponents=3, trials=50_000, seed=1)
    c = equity("7h7d", opponents=3, trials=50_000, seed=2)
    assert a == b and a.equity != c.equity


def test_batch_agrees_with_single_and_ignores_chunking():
    rng = np.random.default_rng(7)
    m = 24
    cards = np.argpartition(rng.random((m, 52)), 7, axis=1)[:, :7].astype(np.uint8)
    holes, boards = cards[:, :2], cards[:, 2:]
    visible = np.array([0, 3, 4, 5] * 6)
    opponents = np.array([1, 2, 5, 9] * 6)[::-1].copy()
    keys = np.arange(100, 100 + m)
    whole = equity_batch(holes, boards, visible, opponents, 20_000, seed=3, keys=keys)
    halves = np.concatenate(
        [
            equity_batch(
                holes[:10], boards[:10], visible[:10], opponents[:10], 20_000, 3, keys[:10]
            ),
            equity_batch(
                holes[10:], boards[10:], visible[10:], opponents[10:], 20_000, 3, keys[10:]
            ),
        ]
    )
    np.testing.assert_array_equal(whole, halves)
    for i in (0, 1, 6, 11):
        single = equity(
            holes[i], boards[i, : visible[i]], int(opponents[i]), trials=200_000, seed=9
        )
        assert abs(whole[i] - single.equity) < 4 * max(single.stderr, 1e-3) + 0.005


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"hero": "AsKx"}, "unknown suit"),
        ({"hero": "As"}, "exactly two cards"),
        ({"hero": "AsK"}, "odd number"),
        ({"hero": "AsKs", "board": "Ks7c2d"}, "duplicate card Ks in hero and board"),
        ({"hero": "AsKs", "board": "7c7c"}, "duplicate card 7c"),
        ({"hero": "AsKs", "opponents": 0}, r"opponents must be an integer in 1..22"),
        ({"hero": "AsKs", "opponents": 23}, r"opponents must be an integer in 1..22"),
        ({"hero": "AsKs", "trials": 0}, "trials must be a positive integer"),
        ({"hero": "AsKs", "method": "fast"}, "method 'fast' is not one of"),
        ({"hero": "AsKs", "board": "2c3c4c5c6c7c"}, "at most 5 cards"),
    ],
)
def test_bad_input_is_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        equity(**kwargs)
