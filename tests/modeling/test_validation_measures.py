"""The validation grid's measures (``sparring.modeling.validation``) on hand-made cell results
whose slopes, coverage, shares, delays, edges and Brier scores are known."""

import math
from types import SimpleNamespace

import numpy as np
import pytest

from sparring.modeling import validation
from sparring.modeling.scenarios import ESTIMATED, SeriesResult
from sparring.modeling.validation import log_log_slope, metric_name, paired_edge

HANDS = [4, 16]


def grid(**more):
    fields = dict(
        profiles={"p": {}, "q": {}, "s": {"shift_after": 5}},
        estimate=["p"],
        hands=HANDS,
        seeds=2,
        reference_hands=100,
        level=0.9,
        pairs=[("p", "q")],
        drift=SimpleNamespace(shifted="s", stationary="p", hands=10, runs=2),
        match=SimpleNamespace(opponents=["q"], games=2, series=1),
    )
    return SimpleNamespace(**(fields | more))


def estimates(error: float, covers: bool) -> list[dict]:
    """One estimation cell: every metric ``error`` above its truth 0.5, its interval covering
    the truth or starting above it."""
    e = 0.5 + error
    low = 0.4 if covers else e - 0.1
    return [{"metric": m, "estimate": e, "low": low, "high": e + 1.0, "n": 10}
            for m in ESTIMATED]  # fmt: skip


def results(truth: dict | None = None) -> dict:
    out: dict = {("reference", "p", 100): {"truth": truth or dict.fromkeys(ESTIMATED, 0.5)}}
    for i in range(2):
        out[("estimation", "p", 4, i)] = {"rows": estimates(0.2, covers=False)}
        out[("estimation", "p", 16, i)] = {"rows": estimates(0.1, covers=True)}
        out[("separation", "p", "q", 4, i)] = {
            "rows": [{"metric": "aggression", "js": 0.3, "disjoint": float(i == 0)}]
        }
        out[("separation", "p", "q", 16, i)] = {
            "rows": [{"metric": "aggression", "js": 0.9, "disjoint": 1.0}]
        }
    out[("drift", "s", 10, 0)] = {"delay": 3.0, "false_alarms": 1}
    out[("drift", "s", 10, 1)] = {"delay": float("inf"), "false_alarms": 0}
    out[("drift", "p", 10, 0)] = {"delay": float("nan"), "false_alarms": 2}
    out[("drift", "p", 10, 1)] = {"delay": float("nan"), "false_alarms": 0}
    model = SeriesResult(margins=[1.0, 3.0], wins=[True, True],
                         calibration={"bluff": [(0.8, True), (0.2, False)]},
                         summary={"en": ["reads", "bluffs"]})  # fmt: skip
    out[("match", "q", "model", 2, 0)] = {"series": model}
    out[("match", "q", "control", 2, 0)] = {
        "series": SeriesResult(margins=[0.0, 1.0], wins=[False, True])
    }
    return out


def test_the_slope_of_a_one_over_root_n_error_is_minus_a_half():
    ns = [25, 100, 400, 1600]
    assert log_log_slope(ns, [3 / math.sqrt(n) for n in ns]) == pytest.approx(-0.5)
    assert log_log_slope(ns, [2.0, 1.0, 0.0, float("inf")]) == pytest.approx(-0.5)  # 2 points
    assert math.isnan(log_log_slope(ns, [1.0, 0.0, float("nan"), float("inf")]))


def test_metric_names_keep_what_mlflow_accepts():
    assert metric_name("error", "aggression", "n=20") == "error/aggression/n_20"
    assert metric_name("match", "a b", "model") == "match/a b/model"
    assert metric_name("separated", "x|y", 3) == "separated/x_y/3"


def test_the_edge_is_paired_per_game_when_both_arms_played_as_many():
    edge, low, high = paired_edge([1.0, 2.0, 3.0], [0.0, 0.0, 0.0])
    half = 1.96 * 1.0 / math.sqrt(3)  # sd of the differences 1, 2, 3 is 1
    assert (edge, low, high) == pytest.approx((2.0, 2.0 - half, 2.0 + half))
    edge, low, high = paired_edge([1.0, 3.0], [0.0, 1.0, 2.0])  # independent samples
    half = 1.96 * math.sqrt(2.0 / 2 + 1.0 / 3)
    assert (edge, low, high) == pytest.approx((1.0, 1.0 - half, 1.0 + half))


def test_the_cells_cover_the_grid_in_scenario_order():
    cells = validation.cells(grid())
    kinds = [c[0] for c in cells]
    counts = {"reference": 1, "estimation": 4, "separation": 4, "drift": 4, "match": 2}
    assert kinds == [kind for kind, n in counts.items() for _ in range(n)]
    assert cells[0] == ("reference", "p", 100)
    assert cells[1:3] == [("estimation", "p", 4, 0), ("estimation", "p", 4, 1)]
    assert cells[9:11] == [("drift", "s", 10, 0), ("drift", "s", 10, 1)]
    assert cells[-2:] == [("match", "q", "model", 2, 0), ("match", "q", "control", 2, 0)]
    assert set(cells) == set(results())


def test_run_cell_refuses_an_unknown_kind():
    with pytest.raises(ValueError, match="unknown cell kind 'nope'"):
        validation.run_cell(("nope",), {}, 0, 0.9)


def test_estimation_error_slope_and_coverage():
    found = validation.measure(grid(), results())
    m = found.metrics
    for metric in ESTIMATED:
        assert m[f"error_slope/{metric}"] == pytest.approx(-0.5)  # error halves as n x4
        assert m[f"error/{metric}/n_4"] == pytest.approx(0.2)
        assert m[f"coverage/{metric}"] == 0.5  # the n=4 intervals miss, the n=16 ones cover
    assert m["error_slope"] == pytest.approx(-0.5)
    assert m["coverage"] == 0.5
    assert found.summary[:2] == [
        ["error slope (log-log)", "-0.50", "per metric " + ", ".join(["-0.50"] * 6)],
        ["interval coverage", "0.500", "nominal 0.9"],
    ]
    rows = [r for r in found.rows if r["scenario"] == "estimation"]
    assert len(rows) == 6 * 2 * 2
    assert rows[0] == dict(scenario="estimation", profile="p", arm="", hands=4, seed=0,
                           metric=ESTIMATED[0], value=pytest.approx(0.7), truth=0.5,
                           low=pytest.approx(0.6), high=pytest.approx(1.7))  # fmt: skip


@pytest.mark.filterwarnings("ignore:Mean of empty slice:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_a_metric_without_a_finite_truth_is_not_scored():
    truth = dict.fromkeys(ESTIMATED, 0.5) | {"mus_rate": float("nan")}
    found = validation.measure(grid(), results(truth))
    assert not [r for r in found.rows if r["metric"] == "mus_rate"]
    assert math.isnan(found.metrics["error_slope/mus_rate"])
    assert found.metrics["error_slope"] == pytest.approx(-0.5)


def test_separation_is_the_share_of_runs_with_disjoint_intervals():
    found = validation.measure(grid(), results())
    assert found.metrics["separated/p_vs_q/n_4"] == 0.5
    assert found.metrics["separated/p_vs_q/n_16"] == 1.0
    assert ["separated p vs q", "1.00", "n=4: 0.50, n=16: 1.00"] in found.summary
    rows = [r for r in found.rows if r["scenario"] == "separation"]
    assert [(r["profile"], r["hands"], r["value"], r["high"]) for r in rows] == [
        ("p|q", 4, 0.3, 1.0), ("p|q", 4, 0.3, 0.0), ("p|q", 16, 0.9, 1.0), ("p|q", 16, 0.9, 1.0)
    ]  # fmt: skip


def test_drift_detection_delay_and_false_alarms():
    found = validation.measure(grid(), results())
    m = found.metrics
    assert m["drift/detected"] == 0.5  # the second run never alarmed after the shift
    assert m["drift/delay_median"] == 3.0 and m["drift/delay_p90"] == 3.0
    # 2 stationary alarms + 1 before the shift over 2 x 10 + 2 x 5 hands watched
    assert m["drift/false_alarms_per_100_hands"] == pytest.approx(10.0)
    # over the detected runs only, and said so (a bare "90%" read as a confidence bound)
    said = "median delay 3 hands, 90th percentile 3 (of the 1 of 2 runs detected)"
    assert ["shift detected", "0.50", said] in found.summary
    assert ["false alarms / 100 hands", "10.00", "stationary player + before the shift"] in (
        found.summary
    )
    rows = [(r["profile"], r["seed"], r["metric"], r["value"])
            for r in found.rows if r["scenario"] == "drift"]  # fmt: skip
    assert rows == [("s", 0, "delay", 3.0), ("p", 0, "false_alarms", 2.0),
                    ("s", 1, "delay", float("inf")), ("p", 1, "false_alarms", 0.0)]  # fmt: skip


def test_match_win_rates_paired_edge_and_brier():
    found = validation.measure(grid(), results())
    m = found.metrics
    assert m["match/q/model/win_rate"] == 1.0 and m["match/q/control/win_rate"] == 0.5
    assert m["match/q/model/margin_per_hand"] == 2.0
    assert m["edge/q"] == 1.5  # differences 1, 2: sd 1/sqrt(2), se 1/2
    assert (m["edge/q/low"], m["edge/q/high"]) == pytest.approx((1.5 - 0.98, 1.5 + 0.98))
    assert m["brier/model/bluff"] == pytest.approx(0.04)
    assert "brier/control/bluff" not in m  # the control made no predictions
    assert ["edge vs q (tantos/hand)", "+1.50",
            "95% [+0.52, +2.48]; win rate model 1.00 / control 0.50"] in found.summary  # fmt: skip
    assert ["Brier (model)", "", "bluff 0.040"] in found.summary
    assert found.private == ["[q, en] reads bluffs"]
    assert set(found.logs) == {"model", "control"} and not found.logs["control"].pairs
    rows = [(r["arm"], r["seed"], r["metric"], r["value"])
            for r in found.rows if r["scenario"] == "match"]  # fmt: skip
    assert rows[:4] == [("model", 0, "margin_per_hand", 1.0), ("model", 0, "win", 1.0),
                        ("model", 1, "margin_per_hand", 3.0), ("model", 1, "win", 1.0)]  # fmt: skip
    assert len(rows) == 8


def test_error_curves_with_the_root_n_reference():
    curves = validation.error_curves(grid(), results())
    assert set(curves) == {*ESTIMATED, "1/sqrt(n)"}
    assert curves[ESTIMATED[0]] == pytest.approx([0.2, 0.1])
    assert np.allclose(curves["1/sqrt(n)"], [0.2, 0.1])
    assert validation.error_curves(grid(estimate=[]), {}) == {}
