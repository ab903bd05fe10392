"""The controlled scenarios of §10 on synthetic players, checked as properties."""

import numpy as np
import pytest

from sparring.modeling import scenarios

BALANCED: dict = {}
CAUTIOUS = {"aggression": 0.15, "bluff_frequency": 0.1, "acceptance_rate": 0.35,
            "risk_tolerance": 0.15}  # fmt: skip
HEAVY_BLUFFER = {"aggression": 0.6, "bluff_frequency": 0.8, "bet_size": 10}


@pytest.fixture(scope="module")
def estimation_grid():
    truth = scenarios.reference(BALANCED, 4000, seed=999)
    grid = {n: [scenarios.estimation(BALANCED, n, seed) for seed in range(6)]
            for n in (50, 200, 800)}  # fmt: skip
    return truth, grid


def test_error_falls_like_one_over_root_n(estimation_grid):
    truth, grid = estimation_grid
    ns = sorted(grid)
    errors = [np.mean([abs(r["estimate"] - truth[r["metric"]]) for rows in grid[n] for r in rows])
              for n in ns]  # fmt: skip
    slope = np.polyfit(np.log(ns), np.log(errors), 1)[0]
    assert -0.8 < slope < -0.3, (slope, errors)


def test_credible_intervals_cover_near_their_nominal_rate(estimation_grid):
    truth, grid = estimation_grid
    covered = [r["low"] <= truth[r["metric"]] <= r["high"]
               for runs in grid.values() for rows in runs for r in rows]  # fmt: skip
    assert 0.78 <= np.mean(covered) <= 0.98, np.mean(covered)  # nominal 0.9, 108 intervals


def test_different_profiles_separate_and_equal_ones_do_not():
    apart = [scenarios.separation(CAUTIOUS, HEAVY_BLUFFER, 150, seed) for seed in range(4)]
    assert all(any(r["disjoint"] for r in rows) for rows in apart)
    same = [scenarios.separation(BALANCED, BALANCED, 150, seed) for seed in range(4)]
    js_apart = np.mean([r["js"] for rows in apart for r in rows if r["metric"] == "aggression"])
    js_same = np.mean([r["js"] for rows in same for r in rows if r["metric"] == "aggression"])
    assert js_apart > 0.9 and js_same < 0.5, (js_apart, js_same)
    # identical players look apart now and then: decisions within a hand share the cards, so
    # the Beta's evidence overstates the independent sample (measured: 3 runs in 8 at 150 hands)
    assert sum(any(r["disjoint"] for r in rows) for rows in same) <= 2


def test_a_synthetic_players_shift_is_detected_quickly_and_rarely_falsely():
    shifter = {"aggression": 0.15, "shift_after": 40,
               "shifted": {"aggression": 0.8, "bluff_frequency": 0.3}}  # fmt: skip
    runs = [scenarios.drift(shifter, 80, seed) for seed in range(6)]
    assert all(r["delay"] <= 15 for r in runs), [r["delay"] for r in runs]
    stationary = [scenarios.drift(BALANCED, 150, seed) for seed in range(6)]
    rate = 100 * sum(r["false_alarms"] for r in stationary) / (6 * 150)
    assert rate < 2.5, rate


def test_game_margin_counts_every_tanto_and_ordago_juegos():
    from sparring.mus.engine import Event

    events = [
        Event("score", detail=("grande", 0, 5)),
        Event("score", detail=("chica", 1, 2)),
        Event("ordago", detail=("pares", 1)),  # team 1 had 2: it needed 38
        Event("juego", detail=(1, (5, 2))),
        Event("score", detail=("punto", 0, 1)),
    ]
    assert scenarios.game_margin(events, 0) == 5 - 2 - 38 + 1
    assert scenarios.game_margin(events, 1) == -(5 - 2 - 38 + 1)


@pytest.mark.slow
def test_modeling_bot_beats_the_control_against_a_heavy_bluffer():
    games = 300
    model = scenarios.match_series(HEAVY_BLUFFER, True, games, seed=0)
    control = scenarios.match_series(HEAVY_BLUFFER, False, games, seed=0)
    # the same seeds for both arms: per game differences (common random numbers)
    edge, low, high = scenarios.mean_ci(np.array(model.margins) - np.array(control.margins))
    assert low > 0, (edge, low, high)
    assert model.calibration["bluff"] and model.shifts >= 0
