"""The SPRT of a head-to-head against simulated outcomes: its false-positive rate on equal agents
is within alpha, a large edge is accepted long before a fixed-size test would end, and bad
parameters are refused."""

from __future__ import annotations

import numpy as np
import pytest

from sparring.arena.sprt import SPRT, expected_score, wilson
from sparring.runtime.errors import ConfigError

DRAWS = 0.3


def pair_scores(rng: np.random.Generator, elo: float, units: int, tests: int = 1) -> np.ndarray:
    """``tests`` x ``units`` scores of game pairs (two games, sides swapped) at a true Elo
    difference ``elo`` with a draw rate of 30%: each pair's score is 0, 1/4, ..., 1."""
    s = expected_score(elo)
    p = [s - DRAWS / 2, DRAWS, 1 - s - DRAWS / 2]  # win, draw, loss
    games = rng.choice([1.0, 0.5, 0.0], size=(tests, units, 2), p=p)
    return games.mean(axis=2)


def test_the_false_positive_rate_on_equal_agents_is_within_alpha():
    test = SPRT(elo0=0, elo1=20, alpha=0.05, beta=0.05, max_units=20_000)
    rng = np.random.default_rng(2026)
    runs = 400
    scores = pair_scores(rng, 0.0, test.max_units, runs)
    decisions = [test.decide(row) for row in scores]
    false_positive = sum(d == "H1" for d, _ in decisions)
    low, high = wilson(false_positive, runs)
    rate = false_positive / runs
    print(f"false positives {false_positive}/{runs} = {rate:.3f} [{low:.3f}, {high:.3f}]")
    assert low <= test.alpha  # not significantly above alpha
    assert rate <= test.alpha + 0.02
    assert sum(d == "none" for d, _ in decisions) <= runs * 0.01  # nearly every test ends
    # and it does say something: most equal pairs are accepted as H0
    assert sum(d == "H0" for d, _ in decisions) >= runs * 0.9


def test_a_large_edge_is_accepted_in_fewer_units_than_the_fixed_size_test():
    test = SPRT(elo0=0, elo1=10, alpha=0.05, beta=0.05, max_units=50_000)
    rng = np.random.default_rng(7)
    scores = pair_scores(rng, 300.0, 2_000)[0]
    decision, units = test.decide(scores)
    fixed = test.fixed_units(float(scores.var()))
    assert decision == "H1" and units < fixed / 20, (units, fixed)


def test_the_path_and_bounds_are_the_textbook_ones():
    test = SPRT(elo0=0, elo1=5, alpha=0.05, beta=0.1)
    lower, upper = test.bounds
    assert lower == pytest.approx(np.log(0.1 / 0.95)) and upper == pytest.approx(np.log(0.9 / 0.05))
    scores = np.array([1.0, 0.5, 0.75, 0.25, 1.0])
    n = np.arange(1, 6)
    mean = np.cumsum(scores) / n
    var = (n * (np.cumsum(scores**2) / n - mean**2) + 0.25) / (n + 1)  # with the pseudo-unit
    s0, s1 = 0.5, expected_score(5)
    with np.errstate(divide="ignore"):  # the first unit: no variance
        by_hand = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
    path = test.llr_path(scores)
    assert path[0] == 0.0  # one unit: no variance yet
    assert path[1:] == pytest.approx(by_hand[1:])
    assert test.decide(scores[:3]) == ("continue", 3)


@pytest.mark.parametrize(
    "kwargs, says",
    [
        ({"elo0": 5, "elo1": 0}, "sprt.elo1=0 is not allowed: expected a number above elo0=5"),
        ({"alpha": 0}, "sprt.alpha=0 is not allowed"),
        ({"beta": 0.7}, "sprt.beta=0.7 is not allowed"),
        ({"max_units": 1}, "sprt.max_units=1 is not allowed"),
    ],
)
def test_bad_parameters_are_refused_in_one_line(kwargs, says):
    with pytest.raises(ConfigError, match=says):
        SPRT(**kwargs)


def test_an_agent_that_wins_every_unit_is_decided_soon():
    """No variance at all (every unit won): the pseudo-unit lets the test decide."""
    test = SPRT(elo0=0, elo1=50, alpha=0.05, beta=0.05, max_units=400)
    decision, units = test.decide(np.ones(400))
    assert decision == "H1" and units <= 10
    assert test.decide(np.full(400, 0.5))[0] == "H0"  # every unit even: no edge


def test_the_mean_sprt_keeps_its_error_rates_on_normal_outcomes():
    """Retrain's test of a mean (bb/100 per deal, no bounds): over 300 simulated tests at
    each hypothesis, its false promotions and false keeps are within alpha and beta (their
    Wilson intervals reach them), and it ends well before a fixed-size test would."""
    from sparring.arena.sprt import MeanSPRT

    test = MeanSPRT(mean0=0.0, mean1=2.0, alpha=0.05, beta=0.05, max_units=20_000)
    rng = np.random.default_rng(11)
    runs, sd = 300, 10.0
    fixed = test.fixed_units(sd**2)
    for true, wrong_verdict, rate in ((0.0, "H1", test.alpha), (2.0, "H0", test.beta)):
        outcomes = rng.normal(true, sd, size=(runs, 4 * fixed))
        decisions = [test.decide(row) for row in outcomes]
        wrong = sum(d == wrong_verdict for d, _ in decisions)
        assert wilson(wrong, runs)[0] <= rate, (true, wrong)
        assert all(d in ("H0", "H1") for d, _ in decisions)
        assert np.mean([u for _, u in decisions]) < 0.7 * fixed
    assert test.decide(np.zeros(40)) == ("H0", 30)  # no spread and no edge: H0, at min_units
    assert test.decide(np.full(40, 5.0)) == ("H1", 30)


def test_outcomes_without_spread_are_certain_and_logged_finite():
    """Every deal alike: the mean is known exactly, so the LLR is infinite (printed as such)
    at min_units; the logged metric stays finite; a NaN outcome is refused."""
    from sparring.arena.sprt import MeanSPRT
    from sparring.ga.promotion import Sequential, decide

    test = MeanSPRT(mean0=0.0, mean1=2.0)
    path = test.llr_path(np.zeros(40))
    assert path[29] == -np.inf and (path[:29] == 0).all()
    edges = np.zeros(30)
    promotion = decide(edges, 0.95, Sequential("H0", float(path[29]), 0, 40))
    assert promotion.metrics()["sprt_llr"] == -1e6 and not promotion.promote
    with pytest.raises(ValueError, match="finite"):
        test.decide(np.array([1.0, np.nan, 2.0]))
