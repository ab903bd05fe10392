"""Rate arithmetic, credible intervals against scipy, back-off shrinkage."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import beta as beta_dist

from sparring.modeling.rate import Rate


def test_update_and_mean_and_n():
    r = Rate.with_prior(1, 1)
    for outcome in (True, True, False, True):
        r.update(outcome)
    assert (r.alpha, r.beta) == (4, 2) and r.mean() == pytest.approx(4 / 6) and r.n() == 4
    r.update(False, weight=2.5)
    assert r.beta == 4.5 and r.n() == 6.5


def test_decay_moves_towards_the_prior():
    r = Rate.with_prior(2, 3)
    r.alpha, r.beta = 12, 8
    r.decay(0.5)
    assert (r.alpha, r.beta) == (7, 5.5)
    r.decay(0.0)
    assert (r.alpha, r.beta) == (2, 3) and r.n() == 0


@given(a=st.floats(0.5, 200), b=st.floats(0.5, 200), level=st.floats(0.5, 0.99))
def test_interval_matches_scipy_quantiles(a, b, level):
    r = Rate(a, b, 1, 1)
    lo, hi = r.interval(level)
    tail = (1 - level) / 2
    assert lo == pytest.approx(beta_dist.ppf(tail, a, b))
    assert hi == pytest.approx(beta_dist.ppf(1 - tail, a, b))
    assert lo <= r.mean() <= hi


def test_back_off_shrinks_small_samples_and_converges_with_large_ones():
    rng = np.random.default_rng(0)
    small, large = Rate.shrunk_to(0.2, k=10), Rate.shrunk_to(0.2, k=10)
    for x in rng.random(5) < 0.8:
        small.update(bool(x))
    for x in rng.random(5000) < 0.8:
        large.update(bool(x))
    assert 0.2 < small.mean() < 0.6  # pulled towards the parent's 0.2
    assert large.mean() == pytest.approx(0.8, abs=0.02)


def test_readable_statement_and_confidence_labels():
    r = Rate.with_prior(1, 1)
    assert r.confidence()[1] == "low"
    for _ in range(14):
        r.update(True)
    assert r.describe("bluff") == "P(bluff) = 0.94 (medium confidence, n = 14)"
    for _ in range(30):
        r.update(False)
    assert r.confidence()[1] == "high"


def test_bad_arguments():
    with pytest.raises(ValueError, match="alpha0, beta0 > 0"):
        Rate.with_prior(0, 1)
    with pytest.raises(ValueError, match="decay factor"):
        Rate().decay(1.5)
    with pytest.raises(ValueError, match="level"):
        Rate().interval(1.0)
