import numpy as np

from sparring.ga.trainers import update_trainers


def trainers(k=3):
    return np.stack([np.full((540, 2), i, np.int8) for i in range(k)])


def test_replaces_the_worst_when_positive_and_above_the_best_trainer():
    t = trainers()
    challenger = np.full((540, 2), 50, np.int8)
    new, change = update_trainers(t, challenger, 30.0, np.array([10.0, -25.0, 5.0]), 4, 7)
    assert change is not None and change.left == 1 and change.joined_from == 7
    assert change.generation == 4 and change.best_trainer_winnings == 10.0
    assert np.array_equal(new[1], challenger)
    assert np.array_equal(new[[0, 2]], t[[0, 2]])
    assert np.array_equal(t, trainers())  # the old set is untouched


def test_keeps_the_set_when_winnings_not_positive():
    t = trainers()
    new, change = update_trainers(t, t[0], 0.0, np.array([-1.0, -2.0, -3.0]), 0, 0)
    assert change is None and new is t


def test_keeps_the_set_when_below_or_equal_to_the_best_trainer():
    t = trainers()
    for winnings in (9.0, 10.0):
        new, change = update_trainers(t, t[0], winnings, np.array([10.0, -25.0, 5.0]), 0, 0)
        assert change is None and new is t
