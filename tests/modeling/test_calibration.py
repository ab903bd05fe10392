"""Calibration: Brier, reliability bins, Platt scaling recovers a known distortion."""

import numpy as np
import pytest

from sparring.modeling.calibration import (
    CalibrationLog,
    PlattScaler,
    brier,
    reliability,
    reliability_plot,
)


def test_brier_known_values():
    assert brier([1.0, 0.0], [True, False]) == 0
    assert brier([0.5] * 4, [True, False, True, False]) == 0.25
    assert brier([0.8, 0.3], [True, True]) == pytest.approx((0.04 + 0.49) / 2)


def test_reliability_bins_count_and_average():
    p = [0.05, 0.15, 0.12, 0.95]
    y = [False, True, False, True]
    mean_p, freq, count = reliability(p, y, bins=10)
    assert count.tolist() == [1, 2, 0, 0, 0, 0, 0, 0, 0, 1]
    assert mean_p[1] == pytest.approx(0.135) and freq[1] == 0.5
    assert np.isnan(freq[2])


def test_platt_scaling_recovers_a_known_temperature():
    rng = np.random.default_rng(0)
    true_p = rng.uniform(0.02, 0.98, 20_000)
    outcomes = rng.random(true_p.size) < true_p
    logit = np.log(true_p / (1 - true_p))
    overconfident = 1 / (1 + np.exp(-2.0 * logit + 0.3))  # a = 2, b = -0.3 distortion
    scaler = PlattScaler().fit(overconfident, outcomes)
    assert scaler.a == pytest.approx(0.5, abs=0.03)
    assert scaler.b == pytest.approx(0.15, abs=0.05)
    fixed = [scaler(p) for p in overconfident[:2000]]
    assert brier(fixed, outcomes[:2000]) < brier(overconfident[:2000], outcomes[:2000])


def test_the_log_refits_only_when_calibration_worsens(tmp_path):
    rng = np.random.default_rng(1)
    log = CalibrationLog(window=100)
    for _ in range(200):  # calibrated predictions
        p = rng.uniform(0.1, 0.9)
        log.add("win_lance", p, bool(rng.random() < p))
    worse_before = log.check()
    for _ in range(100):  # then overconfident: says 0.95 for a coin flip
        log.add("win_lance", 0.95, bool(rng.random() < 0.5))
    assert log.check() == ["win_lance"]
    assert log.scale("win_lance", 0.95) < 0.9  # the temperature pulls it back
    assert worse_before in ([], ["win_lance"])
    path = reliability_plot(tmp_path / "rel.png", log, "test")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_predictions_are_refused():
    log = CalibrationLog()
    with pytest.raises(ValueError, match="probability"):
        log.add("bluff", 1.5, True)
    with pytest.raises(ValueError, match="calibration kind"):
        log.add("weather", 0.5, True)
