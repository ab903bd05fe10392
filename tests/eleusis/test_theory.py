"""d(c), the oracle's drift, best != mode, and the DP against simulation."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sparring.eleusis.cards import card_index
from sparring.eleusis.decks import FAMILIES, make_deck
from sparring.eleusis.env import deck_cdf, game_stream
from sparring.eleusis.feedback import feedback_code, harma_change
from sparring.eleusis.roster import NAMES
from sparring.eleusis.scientists import NO_HYPOTHESES, play_game
from sparring.eleusis.theory import d_of, expected_guesses, oracle_drift


def brute_force_d(p, guess):
    """E[harma consumed] by summing over every card that could be drawn."""
    return sum(-harma_change(feedback_code(guess, c)) * p[c] for c in range(52))


@given(st.integers(0, 2**32 - 1))
def test_d_matches_brute_force_expectation(seed):
    p = np.random.default_rng(seed).dirichlet(np.full(52, 0.3))
    d = d_of(p)
    for guess in range(52):
        assert d[guess] == pytest.approx(brute_force_d(p, guess), abs=1e-12)


def test_best_is_not_the_mode():
    p = make_deck("best_ne_mode")
    d = d_of(p)
    assert p.argmax() == card_index("C", 1)
    assert d[card_index("C", 1)] == pytest.approx(0.0, abs=1e-12)
    assert d[card_index("D", 6)] == pytest.approx(0.1) == d[card_index("D", 7)]
    assert d.argmax() in (card_index("D", 6), card_index("D", 7))


def test_uniform_deck_drifts_the_wrong_way():
    assert oracle_drift(np.full(52, 1 / 52)) == pytest.approx(-1.3269, abs=1e-4)
    guesses, _ = expected_guesses(np.full(52, 1 / 52), 100)
    assert guesses == float("inf")


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_family_is_a_reproducible_distribution(family):
    a, b = make_deck(family, 7), make_deck(family, 7)
    assert np.array_equal(a, b) and a.shape == (52,)
    assert a.min() >= 0 and a.sum() == pytest.approx(1.0)


def test_bad_deck_specs_are_explained():
    with pytest.raises(ValueError, match="unknown family 'spikes'"):
        make_deck("spikes")
    with pytest.raises(ValueError, match="spike takes alpha, not 'beta'"):
        make_deck("spike:beta=0.2")
    with pytest.raises(ValueError, match="not a number"):
        make_deck("spike:alpha=lots")


@pytest.mark.parametrize(
    ("deck", "optimal"), [("spike:alpha=0.5", False), ("suit_rank:suit=0.7,rank=0.5", True)]
)
def test_value_iteration_agrees_with_simulating_the_oracle(deck, optimal):
    p = make_deck(deck, 3)
    expected, policy = expected_guesses(p, 30, optimal=optimal)
    kind = NAMES.index("optimal" if optimal else "oracle")
    games = [
        play_game(kind, 0.0, deck_cdf(p), p, policy, NO_HYPOTHESES, 30, 10**6, game_stream(s), s)[0]
        for s in range(3000)
    ]
    mean, se = np.mean(games), np.std(games, ddof=1) / np.sqrt(len(games))
    assert abs(mean - expected) < 3 * se, (mean, expected, se)


def test_optimal_is_never_worse_than_greedy():
    for deck in ("best_ne_mode", "spike:alpha=0.5", "zipf:s=2"):
        p = make_deck(deck, 1)
        greedy, _ = expected_guesses(p, 10)
        best, _ = expected_guesses(p, 10, optimal=True)
        assert best <= greedy + 1e-9


def _dense_evaluate(probs, policy, top, drift):
    """The reference: the same system as a dense matrix (what the banded solve replaced)."""
    matrix, rhs = np.zeros((top, top)), np.ones(top)
    for h in range(1, top + 1):
        a, b, c = probs[policy[h - 1]]
        matrix[h - 1, h - 1] += 1 - b
        if h - 3 >= 1:
            matrix[h - 1, h - 4] -= a
        if h + 2 <= top:
            matrix[h - 1, h + 1] -= c
        else:
            matrix[h - 1, top - 1] -= c
            rhs[h - 1] += c * (h + 2 - top) / drift
    return np.linalg.solve(matrix, rhs)


@pytest.mark.parametrize("seed", range(5))
def test_the_banded_evaluation_equals_the_dense_solve(seed):
    from sparring.eleusis.theory import _evaluate, outcome_probabilities

    rng = np.random.default_rng(seed)
    p = np.zeros(52)
    support = rng.choice(52, 3, replace=False)
    p[support] = rng.dirichlet(np.full(3, 5.0))  # a spiky deck the oracle finishes
    probs = outcome_probabilities(p)
    top = int(rng.integers(5, 700))
    drift = oracle_drift(p)
    assert drift > 0
    greedy = np.full(top, int(np.argmax(d_of(p))))
    optimal = expected_guesses(p, top - 300, optimal=True)[1] if top > 300 else greedy
    for policy in (greedy, optimal):  # the policies the oracle evaluates
        got = _evaluate(probs, policy, top, drift)
        np.testing.assert_allclose(got, _dense_evaluate(probs, policy, top, drift), rtol=1e-9)


def test_memory_grows_with_h0_not_its_square():
    """At the bound (h0 = 100000) the optimal policy's evaluation stays far below the dense
    system's 80 GB: its peak allocation is a few hundred MB at most."""
    import tracemalloc

    from sparring.eleusis.limits import MAX_H0
    from sparring.eleusis.theory import expected_guesses

    p = np.zeros(52)
    p[:4] = [0.4, 0.3, 0.2, 0.1]
    tracemalloc.start()
    value, _ = expected_guesses(p, MAX_H0, optimal=True)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert np.isfinite(value) and peak < 512 * 2**20
    with pytest.raises(ValueError, match=r"h0=100001: .* 1\.\.100000"):
        expected_guesses(p, MAX_H0 + 1)


def test_a_harma_beyond_the_bound_is_refused_before_any_work():
    """``h0=[1000000]`` used to pass the check and fail inside Ray allocating 7.28 TiB."""
    from tests.helpers.commands import run_cli
    from tests.helpers.configs import config_error

    assert "h0=[1000000] is not allowed" in config_error("eleusis_bench", "h0=[1000000]")
    done = run_cli("eleusis", "scientist", "--harma", "10000000", timeout=120)
    assert done.returncode == 2 and "1..100000" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
