"""Drift: JS divergence between Betas, Page–Hinkley, and the monitor's measured behaviour."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import quad
from scipy.stats import beta as beta_dist

from sparring.modeling.drift import DriftConfig, DriftMonitor, PageHinkley, js_divergence
from sparring.modeling.rate import Rate


def _js_reference(a, b):
    """JS divergence by adaptive quadrature (bits)."""

    def term(x, p, q):
        fp, fq = beta_dist.pdf(x, *p), beta_dist.pdf(x, *q)
        m = 0.5 * (fp + fq)
        return 0.0 if fp == 0 else fp * np.log2(fp / m)

    return (
        0.5 * quad(term, 0, 1, args=(a, b), limit=200)[0]
        + 0.5 * quad(term, 0, 1, args=(b, a), limit=200)[0]
    )


@settings(max_examples=25, deadline=None)
@given(st.floats(1.0, 40.0), st.floats(1.0, 40.0), st.floats(1.0, 40.0), st.floats(1.0, 40.0))
def test_js_divergence_matches_quadrature(a1, b1, a2, b2):
    got = js_divergence(Rate(a1, b1), Rate(a2, b2))
    assert got == pytest.approx(_js_reference((a1, b1), (a2, b2)), abs=2e-3)


def test_js_divergence_with_a_lot_of_evidence():
    # regression: denormal masses in the tails once made this 1.0 (an overflowing a / m)
    got = js_divergence(Rate(83.2, 305.8), Rate(89.2, 302.8))
    assert got == pytest.approx(_js_reference((83.2, 305.8), (89.2, 302.8)), abs=2e-3)
    assert got < 0.2


def test_js_divergence_bounds():
    assert js_divergence(Rate(5, 5), Rate(5, 5)) == pytest.approx(0, abs=1e-9)
    assert js_divergence(Rate(400, 2), Rate(2, 400)) == pytest.approx(1, abs=1e-3)


def test_page_hinkley_fires_on_a_step_and_not_on_a_constant():
    ph = PageHinkley(delta=0.1, threshold=4.0)
    assert not any(ph.update(0.3) for _ in range(1000))
    ph = PageHinkley(delta=0.1, threshold=4.0)
    for _ in range(50):
        ph.update(0.0)
    # each 1 after the step adds about 1 - mean - delta to the statistic
    fired = [i for i in range(30) if ph.update(1.0)]
    assert fired and fired[0] <= 6


def _stream(monitor, rng, p_before, p_after, shift, hands, per_hand=3):
    alarms = []
    for h in range(hands):
        p = p_before if h < shift else p_after
        for _ in range(per_hand):
            monitor.observe("aggression", bool(rng.random() < p))
        if monitor.end_hand():
            alarms.append(h)
    return alarms


@pytest.mark.parametrize(("before", "after"), [(0.2, 0.7), (0.7, 0.2), (0.1, 0.5)])
def test_a_shift_of_known_size_is_detected_within_a_bounded_number_of_hands(before, after):
    delays = []
    for seed in range(30):
        alarms = _stream(DriftMonitor(), np.random.default_rng(seed), before, after, 60, 100)
        later = [a - 60 for a in alarms if a >= 60]
        delays.append(later[0] if later else 10**6)
    assert max(delays) <= 25, delays  # every run detects it, within 25 hands
    assert np.median(delays) <= 6, delays


def test_stationary_streams_raise_few_alarms():
    hands, alarms = 0, 0
    for seed in range(20):
        for p in (0.1, 0.3, 0.5, 0.8):
            alarms += len(_stream(DriftMonitor(), np.random.default_rng(seed), p, p, 10**9, 150))
            hands += 150
    rate = 100 * alarms / hands
    assert rate < 2.0, f"{rate:.2f} false alarms per 100 hands"


def test_an_alarm_reduces_the_long_models_confidence_and_boosts_the_recent_weight():
    cfg = DriftConfig()
    monitor = DriftMonitor(cfg)
    for _ in range(40):
        for _ in range(3):
            monitor.observe("aggression", False)
        monitor.end_hand()
    evidence = monitor.long("aggression").n()
    assert monitor.recent_weight("aggression") == cfg.recent_weight
    events = []
    for _ in range(5):
        for _ in range(3):
            monitor.observe("aggression", True)
        events += monitor.end_hand()
    assert events and events[0].metric == "aggression"
    assert events[0].recent_mean > 5 * events[0].long_mean  # recent aggression ≫ long
    assert monitor.long("aggression").n() < evidence * 0.5
    assert monitor.recent_weight("aggression") == cfg.boosted_weight
    assert monitor.confidence_scale("aggression") == cfg.confidence_factor
