"""The evaluator against known counts, brute force and an independent library (eval7)."""

from itertools import combinations

import numpy as np
import pytest
from numba import njit

from sparring.poker.cards import parse_cards
from sparring.poker.evaluator import (
    CARD_BITS,
    CARD_KEYS,
    SUIT_START,
    evaluate5,
    evaluate7,
    hand_category,
    value7,
)

# Category counts over all C(52, 5) and C(52, 7) hands (high card ... straight flush).
FIVE_CARD_COUNTS = [1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 40]
SEVEN_CARD_COUNTS = [
    23294460,
    58627800,
    31433400,
    6461620,
    6180020,
    4047644,
    3473184,
    224848,
    41584,
]


def random_hands(n, size, seed):
    rng = np.random.default_rng(seed)
    keys = rng.random((n, 52), dtype=np.float32)
    return np.argpartition(keys, size, axis=1)[:, :size].astype(np.uint8)


def all_five_card_hands():
    return np.array(list(combinations(range(52), 5)), dtype=np.uint8)


def test_all_five_card_hands_have_7462_values_and_known_categories():
    values = evaluate5(all_five_card_hands())
    assert len(np.unique(values)) == 7462
    assert values.min() == 1 and values.max() == 7462
    assert np.bincount(hand_category(values), minlength=9).tolist() == FIVE_CARD_COUNTS


@njit(cache=True)
def _seven_card_census():
    """Values of all 133,784,560 seven-card hands, keys summed incrementally per loop level."""
    seen = np.zeros(7463, dtype=np.int64)
    for a in range(46):
        ka, ba = SUIT_START + CARD_KEYS[a], CARD_BITS[a]
        for b in range(a + 1, 47):
            kb, bb = ka + CARD_KEYS[b], ba | CARD_BITS[b]
            for c in range(b + 1, 48):
                kc, bc = kb + CARD_KEYS[c], bb | CARD_BITS[c]
                for d in range(c + 1, 49):
                    kd, bd = kc + CARD_KEYS[d], bc | CARD_BITS[d]
                    for e in range(d + 1, 50):
                        ke, be = kd + CARD_KEYS[e], bd | CARD_BITS[e]
                        for f in range(e + 1, 51):
                            kf, bf = ke + CARD_KEYS[f], be | CARD_BITS[f]
                            for g in range(f + 1, 52):
                                seen[value7(kf + CARD_KEYS[g], bf | CARD_BITS[g])] += 1
    return seen


@pytest.mark.slow
def test_exhaustive_seven_card_counts():
    seen = _seven_card_census()
    assert seen.sum() == 133_784_560
    values = np.flatnonzero(seen)
    assert len(values) == 4824
    per_category = np.bincount(hand_category(values), weights=seen[values], minlength=9)
    assert per_category.astype(np.int64).tolist() == SEVEN_CARD_COUNTS


def test_seven_card_value_is_best_of_its_five_card_subsets():
    hands = random_hands(3000, 7, seed=1)
    subsets = np.array(list(combinations(range(7), 5)))
    fives = hands[:, subsets].reshape(-1, 5)
    best = evaluate5(fives).reshape(len(hands), 21).max(axis=1)
    np.testing.assert_array_equal(evaluate7(hands), best)


def test_order_of_cards_and_suit_relabelling_do_not_matter():
    hands = random_hands(20000, 7, seed=2)
    base = evaluate7(hands)
    shuffled = np.random.default_rng(3).permuted(hands, axis=1)
    np.testing.assert_array_equal(evaluate7(shuffled), base)
    relabel = np.array([2, 0, 3, 1])  # a permutation of the suits
    renamed = (hands // 4) * 4 + relabel[hands % 4]
    np.testing.assert_array_equal(evaluate7(renamed.astype(np.uint8)), base)


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("AsKsQsJsTs2c3d", 8),
        ("As2s3s4s5s9c9d", 8),  # steel wheel
        ("AsAdAhAc2s3d4h", 7),
        ("KsKdKhQcQs2d3h", 6),
        ("KsKdKhQcQsQd3h", 6),  # two trips make a full house
        ("As9s7s5s2sKdKh", 5),
        ("As2d3h4c5s9dTh", 4),  # wheel
        ("7s7d7h2c9sJdKh", 3),
        ("7s7d9h9c2sJdKh", 2),
        ("7s7d9h2c3sJdKh", 1),
        ("7s5d9h2c3sJdKh", 0),
    ],
)
def test_hand_categories_of_known_hands(text, category):
    assert hand_category(evaluate7(parse_cards(text).reshape(1, 7)))[0] == category


def test_known_orderings():
    def v(text):
        return int(evaluate7(parse_cards(text).reshape(1, 7))[0])

    assert v("As2d3h4c5s9dJh") < v("2s3d4h5c6s9dJh")  # the wheel is the lowest straight
    assert v("AsAdKhKcQsQd2h") == v("AsAdKhKcQs3d2h")  # third pair cannot play
    assert v("AsAdKhKcQsJd2h") > v("AsAdKhKcJsTd2h")  # kicker decides
    assert v("2s2d2h2c3s4d5h") < v("2s2d2h2c3s4dAh")  # quads kicker


def test_agrees_with_eval7_on_a_million_random_hands():
    eval7 = pytest.importorskip("eval7")
    hands = random_hands(1_000_000, 7, seed=4)
    ours = evaluate7(hands)
    deck = [eval7.Card(r + s) for r in "23456789TJQKA" for s in "cdhs"]
    theirs = np.fromiter(
        (eval7.evaluate([deck[c] for c in row]) for row in hands.tolist()),
        dtype=np.int64,
        count=len(hands),
    )
    # Same order and same ties: ours is a strictly increasing function of theirs.
    pairs = np.unique(np.stack([theirs, ours], axis=1), axis=0)
    assert len(np.unique(pairs[:, 0])) == len(pairs), "one eval7 value maps to two of ours"
    assert np.all(np.diff(pairs[:, 1]) > 0), "the order differs from eval7"
    names = [
        "High Card",
        "Pair",
        "Two Pair",
        "Trips",
        "Straight",
        "Flush",
        "Full House",
        "Quads",
        "Straight Flush",
    ]
    cats = hand_category(pairs[:, 1])
    for e7_value, cat in zip(pairs[:, 0][::97], cats[::97], strict=True):
        assert eval7.handtype(int(e7_value)) == names[cat]


def test_agrees_with_phevaluator_on_five_card_hands():
    phe = pytest.importorskip("phevaluator")
    hands = random_hands(20000, 5, seed=5)
    ours = evaluate5(hands)
    # phevaluator ranks 1 (best) .. 7462 (worst) on the same 7,462 classes.
    theirs = np.array([phe.evaluate_cards(*row) for row in hands.tolist()])
    np.testing.assert_array_equal(ours, 7463 - theirs)


def test_bad_shapes_and_values_are_refused():
    with pytest.raises(ValueError, match=r"shape \(n, 7\)"):
        evaluate7(np.zeros((3, 6), dtype=np.uint8))
    with pytest.raises(ValueError, match="0..51"):
        evaluate7(np.full((1, 7), 60))
    with pytest.raises(ValueError, match="1..7462"):
        hand_category(np.array([0]))


@pytest.mark.parametrize("evaluate, width", [(evaluate7, 7), (evaluate5, 5)])
def test_a_byte_out_of_range_anywhere_in_a_batch_is_refused(evaluate, width):
    """The kernels check card bytes as they read them (no pass over the input first): every
    byte 52..255, in every position of the last hand of a batch of good hands, is refused; the
    batch without it is evaluated (the control)."""
    rng = np.random.default_rng(7)
    good = np.argsort(rng.random((50, 52)), axis=1)[:, :width].astype(np.uint8)
    assert evaluate(good).min() >= 1
    for byte in range(52, 256):
        for position in range(width):
            bad = good.copy()
            bad[-1, position] = byte
            with pytest.raises(ValueError, match="0..51"):
                evaluate(bad)


@pytest.mark.parametrize("evaluate, width", [(evaluate7, 7), (evaluate5, 5)])
def test_values_written_into_a_given_array_are_the_returned_ones(evaluate, width):
    """``out=`` is filled and returned, batch after batch, with the values a call without it
    returns; an array of another type, length or layout is refused before any work."""
    rng = np.random.default_rng(3)
    out = np.full(200, -1, dtype=np.int32)
    for _ in range(3):  # reused: each batch overwrites the last
        hands = np.argsort(rng.random((200, 52)), axis=1)[:, :width].astype(np.uint8)
        assert evaluate(hands, out=out) is out
        np.testing.assert_array_equal(out, evaluate(hands))
    for wrong in (
        np.zeros(200, np.int64),
        np.zeros(199, np.int32),
        np.zeros(400, np.int32)[::2],
        np.zeros((200, 1), np.int32),
        [0] * 200,
    ):
        with pytest.raises(ValueError, match="out must be a writeable contiguous int32"):
            evaluate(hands, out=wrong)
    frozen = np.zeros(200, np.int32)
    frozen.setflags(write=False)
    with pytest.raises(ValueError, match="writeable"):
        evaluate(hands, out=frozen)
