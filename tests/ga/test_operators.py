"""GA operators on hand-made parents: which genes move where."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sparring.ga.operators import (
    CROSSOVERS,
    crossover_for_generation,
    half_individual,
    half_used,
    median_used_index,
    mutate,
    random_genes,
    tournament,
    used_genes,
)
from sparring.poker.catalog import N_GENES


def parents():
    # Parent a: gene g holds (g % 100, g % 100); parent b: the negatives. Every gene is traceable.
    g = np.arange(N_GENES) % 100
    a = np.stack([g, g], axis=1).astype(np.int8)
    b = (-a - 1).astype(np.int8)
    return a, b


def from_a(child, a):
    return np.all(child == a, axis=1)


def test_half_individual_swaps_tails_at_one_cut():
    a, b = parents()
    c1, c2 = half_individual(a, b, None, np.random.default_rng(3))
    mask = from_a(c1, a)
    cut = int(np.argmin(mask))
    assert 1 <= cut < N_GENES
    assert mask[:cut].all() and not mask[cut:].any()  # head of a, tail of b
    assert np.array_equal(c2[:cut], b[:cut]) and np.array_equal(c2[cut:], a[cut:])


def test_half_used_cuts_at_the_median_used_index():
    a, b = parents()
    used = np.zeros(N_GENES, bool)
    used[[10, 20, 30, 40]] = True
    assert median_used_index(used) == 30
    used[50] = True
    assert median_used_index(used) == 30  # odd count: the middle one
    c1, c2 = half_used(a, b, used, np.random.default_rng(0))
    assert np.array_equal(c1[:30], a[:30]) and np.array_equal(c1[30:], b[30:])
    assert np.array_equal(c2[:30], b[:30]) and np.array_equal(c2[30:], a[30:])


def test_random_genes_swaps_a_random_half_and_children_are_complementary():
    a, b = parents()
    c1, c2 = random_genes(a, b, None, np.random.default_rng(5))
    swapped = ~from_a(c1, a)
    assert np.array_equal(c1[swapped], b[swapped]) and np.array_equal(c2[swapped], a[swapped])
    assert np.array_equal(c2[~swapped], b[~swapped])
    assert 0.4 < swapped.mean() < 0.6


def test_used_genes_swaps_only_used_genes():
    a, b = parents()
    used = np.zeros(N_GENES, bool)
    used[::7] = True
    c1, c2 = used_genes(a, b, used, np.random.default_rng(1))
    swapped = ~from_a(c1, a)
    assert swapped.any()
    assert not (swapped & ~used).any()
    assert np.array_equal(c2[swapped], a[swapped]) and np.array_equal(c2[~swapped], b[~swapped])


@given(
    seed=st.integers(0, 2**32 - 1),
    m=st.integers(1, 40),
    variance=st.floats(0.01, 1.0),
    used_count=st.integers(0, N_GENES),
)
def test_mutation_touches_only_used_genes_and_keeps_order_and_range(seed, m, variance, used_count):
    rng = np.random.default_rng(seed)
    x = np.sort(rng.integers(-100, 101, (N_GENES, 2)), axis=1).astype(np.int8)
    used = np.zeros(N_GENES, bool)
    used[rng.choice(N_GENES, used_count, replace=False)] = True
    y = mutate(x, used, m, variance, rng)
    changed = np.any(y != x, axis=1)
    assert not (changed & ~used).any()
    assert changed.sum() <= min(m, used_count)
    assert np.all(y[:, 0] <= y[:, 1])
    assert y.min() >= -100 and y.max() <= 100
    # Each threshold moved by at most variance x 200 (+ rounding); sorting keeps that bound.
    assert np.all(np.abs(np.sort(y.astype(int), 1) - x.astype(int)) <= variance * 200 + 1)


def test_mutation_without_used_genes_changes_nothing():
    x = np.zeros((N_GENES, 2), np.int8)
    assert np.array_equal(mutate(x, np.zeros(N_GENES, bool), 5, 0.5, np.random.default_rng()), x)


def test_tournament_picks_the_fittest_drawn():
    fitness = np.array([5.0, 1.0, 9.0, 3.0])
    rng = np.random.default_rng(0)
    for _ in range(50):
        state = rng.bit_generator.state
        drawn = np.random.default_rng()
        drawn.bit_generator.state = state
        expect = drawn.integers(0, 4, size=3)
        assert tournament(fitness, 3, rng) == expect[np.argmax(fitness[expect])]
    assert tournament(fitness, 100, np.random.default_rng(1)) == 2


def test_operator_policies():
    rng = np.random.default_rng(0)
    assert [crossover_for_generation("cycle", "x", g, rng) for g in range(5)] == [
        *CROSSOVERS,
        CROSSOVERS[0],
    ]
    assert crossover_for_generation("fixed", "used_genes", 7, rng) == "used_genes"
    assert {crossover_for_generation("random", "x", g, rng) for g in range(100)} == set(CROSSOVERS)


@pytest.mark.parametrize("op", [half_individual, half_used, random_genes, used_genes])
def test_parents_are_not_modified(op):
    a, b = parents()
    a0, b0 = a.copy(), b.copy()
    op(a, b, np.ones(N_GENES, bool), np.random.default_rng(0))
    assert np.array_equal(a, a0) and np.array_equal(b, b0)
