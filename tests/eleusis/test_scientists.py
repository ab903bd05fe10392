"""Scientists: the frequency update, the reset, determinism and the ordering on a small grid."""

import numpy as np
import pytest

from sparring.eleusis.bench import run_cell
from sparring.eleusis.cards import consistent_cards
from sparring.eleusis.env import EleusisGame
from sparring.eleusis.scientists import NAMES, Scientist, spread


@pytest.mark.parametrize(("code", "count"), [(3, 1), (1, 12), (2, 3), (0, 36)])
def test_frequency_update_spreads_one_unit_over_the_consistent_cards(code, count):
    weights = np.zeros(52)
    guess = 13 * 2 + 7  # H8
    spread(weights, guess, code)
    touched = np.flatnonzero(weights)
    assert weights.sum() == pytest.approx(1.0)
    assert len(touched) == count
    assert set(touched) == set(consistent_cards(guess, code))
    assert np.allclose(weights[touched], 1 / count)


def test_reset_fires_when_harma_since_reset_exceeds_the_threshold():
    s = Scientist("frequency", param=10)
    for i in range(5):  # five misses: +10 harma, not yet above the threshold
        s.guess()
        s.learn(0)
        assert s.scal[0] == 2 * (i + 1)
    assert s.weights.sum() == pytest.approx(5.0)
    s.guess()
    s.learn(0)  # +12 > 10: reset
    assert s.scal[0] == 0 and s.weights.sum() == 0 and s.scal[1] == 1
    greedy = Scientist("greedy_frequency")
    for _ in range(40):
        greedy.guess()
        greedy.learn(0)
    assert greedy.weights.sum() == pytest.approx(40.0)


def test_a_game_is_reproducible_from_deck_and_seed():
    from sparring.eleusis.decks import make_deck

    p = make_deck("spike:alpha=0.5", 4)
    runs = []
    for _ in range(2):
        game, sci = EleusisGame(p, seed=4), Scientist("beta_thompson", seed=4)
        while not game.over:
            sci.learn(game.guess(sci.guess()).code)
        runs.append(game.guesses)
    assert runs[0] == runs[1]


def test_scientists_need_what_they_claim():
    with pytest.raises(ValueError, match="unknown scientist"):
        Scientist("genius")
    with pytest.raises(ValueError, match="needs the deck"):
        Scientist("oracle")


def test_ordering_on_the_adversarial_deck():
    """The oracle <= the best scientist < the report's baseline, on a small grid."""
    means = {
        name: run_cell(("best_ne_mode", 30, name), seeds=40, cap=200_000).mean_guesses
        for name in NAMES
    }
    learners = {n: means[n] for n in ("beta_thompson", "dirichlet_gibbs", "em_greedy")}
    best = min(learners.values())
    assert means["oracle"] <= best < means["frequency"], means
