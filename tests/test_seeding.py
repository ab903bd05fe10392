import numpy as np
import pytest

from sparring.seeding import task_rng, task_seed


def test_task_seeds_are_stable_and_distinct():
    assert task_seed(1, "equity", 3) == task_seed(1, "equity", 3)
    seeds = {task_seed(1, "equity", k) for k in range(1000)}
    assert len(seeds) == 1000
    assert task_seed(1, "equity", 3) != task_seed(2, "equity", 3)
    assert task_seed(1, "a", 3) != task_seed(1, "b", 3)
    assert 0 <= task_seed(5, "x") < 2**63


def test_known_value_pins_the_derivation():
    # Changing how seeds are derived silently changes every dataset: this pins it.
    expected = int(np.random.SeedSequence(7, spawn_key=(4,)).generate_state(1, np.uint64)[0]) >> 1
    assert task_seed(7, 4) == expected


def test_task_rng_is_reproducible():
    assert task_rng(3, "k").random() == task_rng(3, "k").random()


def test_negative_seed_is_refused():
    with pytest.raises(ValueError, match="non-negative integer"):
        task_seed(-1, "x")
