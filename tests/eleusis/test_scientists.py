"""Scientists: the frequency update, the reset, determinism and the ordering on a small grid."""

import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from sparring.eleusis.bench import run_cell
from sparring.eleusis.env import EleusisGame
from sparring.eleusis.feedback import consistent_cards
from sparring.eleusis.roster import NAMES, parse_scientist
from sparring.eleusis.scientists import Scientist, kl_ucb, spread


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
    learners = {n: means[n] for n in ("beta_thompson", "dirichlet_gibbs", "em_greedy", "kl_ucb")}
    best = min(learners.values())
    assert means["oracle"] <= best < means["frequency"], means


@given(st.floats(0.01, 50.0), st.floats(0.01, 500.0), st.floats(0.01, 10.0))
@example(17.0, 0.3125, 6.25)  # root 1 - 3e-11: Newton stopped a few ulps outside the bound
def test_kl_ucb_is_the_largest_rate_within_the_divergence_bound(a, b, bound):
    q = kl_ucb(a, b, bound)
    p = a / (a + b)
    assert p - 1e-9 <= q <= 1.0

    def divergence(x):
        x = min(max(x, 1e-12), 1 - 1e-12)
        pp = min(max(p, 1e-12), 1 - 1e-12)
        return (a + b) * (pp * math.log(pp / x) + (1 - pp) * math.log((1 - pp) / (1 - x)))

    assert divergence(q) <= bound + 1e-6
    if q < 1 - 1e-6:
        assert divergence(min(q + 1e-5, 1 - 1e-12)) > bound - 1e-3  # no larger q fits
    assert kl_ucb(2 * a, 2 * b, bound) <= q + 1e-7  # more evidence, a tighter bound


def test_kl_ucb_beats_the_reports_baseline_on_the_benchmark_decks():
    for deck in ("suit_rank:suit=0.7,rank=0.5", "best_ne_mode"):
        ucb = run_cell((deck, 100, "kl_ucb"), seeds=60, cap=200_000).mean_guesses
        base = run_cell((deck, 100, "frequency"), seeds=60, cap=200_000).mean_guesses
        assert ucb < base, (deck, ucb, base)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("kl_ucb", ("kl_ucb", 0.5)),
        ("kl_ucb:c=2", ("kl_ucb", 2.0)),
        ("dirichlet_gibbs:alpha=0.03", ("dirichlet_gibbs", 0.03)),
        ("em_greedy:alpha=1", ("em_greedy", 1.0)),
        ("frequency:reset=80", ("frequency", 80.0)),
    ],
)
def test_scientist_specs(spec, expected):
    assert parse_scientist(spec) == expected


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("genius", "unknown scientist 'genius'"),
        ("oracle:c=1", "takes no parameter"),
        ("kl_ucb:alpha=1", "takes c=<number>"),
        ("kl_ucb:c=lots", "must be a number"),
        ("dirichlet_gibbs:alpha=0", "must be in"),
        ("em_greedy:alpha=0.5", "must be in"),
    ],
)
def test_bad_scientist_specs_are_explained(spec, message):
    with pytest.raises(ValueError, match=message):
        parse_scientist(spec)


def test_a_spec_parameter_changes_the_play():
    a = run_cell(("spike:alpha=0.5", 100, "kl_ucb:c=0.1"), seeds=5, cap=100_000)
    b = run_cell(("spike:alpha=0.5", 100, "kl_ucb:c=3"), seeds=5, cap=100_000)
    assert a.scientist == "kl_ucb:c=0.1" and a.mean_guesses != b.mean_guesses


def _steps(scientist, feedback, n=15):
    guesses = []
    for i in range(n):
        guesses.append(scientist.guess())
        scientist.learn(feedback[i % len(feedback)])
    return guesses


@pytest.mark.parametrize("name", ["beta_thompson", "dirichlet_gibbs", "kl_ucb", "em_greedy"])
def test_each_scientist_owns_its_random_stream(name):
    from sparring.eleusis.scientists import Scientist

    feedback = [0, 1, 2, 0, 3, 0]
    alone = _steps(Scientist(name, seed=1), feedback)
    first = Scientist(name, seed=1)
    second = Scientist(name, seed=2)  # constructing another one changes nothing for the first
    interleaved = []
    for i in range(15):
        interleaved.append(first.guess())
        second.guess()
        first.learn(feedback[i % len(feedback)])
        second.learn(feedback[(i + 3) % len(feedback)])
    assert interleaved == alone
    assert _steps(Scientist(name, seed=2), feedback) != alone or name == "em_greedy"
