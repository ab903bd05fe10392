"""The player model's validation grid (``pipelines/validate.py``) as plain values: its cells,
one cell's computation, and the measures the driver draws from the cells' results.

A cell is a tuple whose first item is its kind (``scenarios`` computes each):

- ``("reference", profile, hands)``: the profile's realised rates, the truth;
- ``("estimation", profile, hands, i)``: estimates and intervals after ``hands`` hands;
- ``("separation", first, second, hands, i)``: distances between two profiles' posteriors;
- ``("drift", profile, hands, i)``: the monitor's alarms on a shifting or stationary player;
- ``("match", profile, arm, games, i)``: a series of ModelingBot (``arm`` model) or the
  control (``arm`` control) against the profile.

``measure(grid, results)`` turns ``{cell: result}`` into the rows of the results table (one per
measured value), the metrics (error slopes, coverage, separation, drift, win rates, edges,
Brier scores) and the summary lines (measure, value, detail), in that order of scenarios.
A metric that cannot be measured is NaN (the caller decides what to log).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from sparring.modeling import scenarios
from sparring.modeling.calibration import CalibrationLog
from sparring.modeling.scenarios import ESTIMATED, difference_ci, mean_ci
from sparring.runtime.config import metric_name
from sparring.seeding import task_seed

ARMS = ("model", "control")
NAN = float("nan")

Cell = tuple[Any, ...]


class DriftGrid(Protocol):
    @property
    def shifted(self) -> str: ...  # a profile with shift_after: detection delay
    @property
    def stationary(self) -> str: ...  # false alarms
    @property
    def hands(self) -> int: ...
    @property
    def runs(self) -> int: ...


class MatchGrid(Protocol):
    @property
    def opponents(self) -> Sequence[str]: ...
    @property
    def games(self) -> int: ...  # games per series
    @property
    def series(self) -> int: ...  # series per opponent and arm


class Grid(Protocol):
    """What the grid covers (the fields of ``ValidateConfig`` it reads)."""

    @property
    def profiles(self) -> Mapping[str, Mapping[str, Any]]: ...
    @property
    def estimate(self) -> Sequence[str]: ...
    @property
    def hands(self) -> Sequence[int]: ...
    @property
    def seeds(self) -> int: ...
    @property
    def reference_hands(self) -> int: ...
    @property
    def level(self) -> float: ...
    @property
    def pairs(self) -> Sequence[tuple[str, str]]: ...
    @property
    def drift(self) -> DriftGrid: ...
    @property
    def match(self) -> MatchGrid: ...


@dataclass
class Measures:
    """What the driver logs and writes."""

    rows: list[dict[str, Any]] = field(default_factory=list)  # the results table's rows
    metrics: dict[str, float] = field(default_factory=dict)
    summary: list[list[Any]] = field(default_factory=list)  # measure, value, detail
    logs: dict[str, CalibrationLog] = field(default_factory=dict)  # per arm
    private: list[str] = field(default_factory=list)  # the model arm's private summaries


def cells(grid: Grid) -> list[Cell]:
    """Every cell of the grid: references, estimation, separation, drift, then matches."""
    seeds, hands = range(grid.seeds), grid.hands
    out: list[Cell] = [("reference", p, grid.reference_hands) for p in grid.estimate]
    out += [("estimation", p, n, i) for p in grid.estimate for n in hands for i in seeds]
    out += [("separation", a, b, n, i) for a, b in grid.pairs for n in hands for i in seeds]
    for name in (grid.drift.shifted, grid.drift.stationary):
        out += [("drift", name, grid.drift.hands, i) for i in range(grid.drift.runs)]
    out += [
        ("match", p, arm, grid.match.games, i)
        for p in grid.match.opponents
        for arm in ARMS
        for i in range(grid.match.series)
    ]
    return out


def run_cell(
    cell: Cell, profiles: Mapping[str, Mapping[str, Any]], seed: int, level: float
) -> dict[str, Any]:
    """One grid cell, seeded by its own key (the same wherever and with whomever it runs)."""
    kind = cell[0]
    s = task_seed(seed, *cell)
    if kind == "reference":
        _, name, hands = cell
        return {"truth": scenarios.reference(profiles[name], hands, s)}
    if kind == "estimation":
        _, name, hands, _ = cell
        return {"rows": scenarios.estimation(profiles[name], hands, s, level)}
    if kind == "separation":
        _, first, second, hands, _ = cell
        return {"rows": scenarios.separation(profiles[first], profiles[second], hands, s)}
    if kind == "drift":
        _, name, hands, _ = cell
        return scenarios.drift(profiles[name], hands, s)
    if kind == "match":
        _, name, arm, games, _ = cell
        return {"series": scenarios.match_series(profiles[name], arm == "model", games, s)}
    raise ValueError(f"unknown cell kind {kind!r}")


def log_log_slope(ns: Sequence[int], errors: Sequence[float]) -> float:
    """The least-squares slope of log(error) on log(n) over the positive, finite errors (≈ −1/2
    for an estimate that converges like 1/√n); NaN with fewer than two such points."""
    ok = [(n, e) for n, e in zip(ns, errors, strict=True) if e > 0 and math.isfinite(e)]
    if len(ok) < 2:
        return NAN
    x, y = np.log([n for n, _ in ok]), np.log([e for _, e in ok])
    return float(np.polyfit(x, y, 1)[0])


def paired_edge(model: Sequence[float], control: Sequence[float]) -> tuple[float, float, float]:
    """Model − control with its 95% interval: per game index when the arms played as many
    games (same seeds: common random numbers), else as independent samples."""
    if len(model) == len(control):
        return mean_ci(np.asarray(model) - np.asarray(control))
    return difference_ci(model, control)


def measure(grid: Grid, results: Mapping[Cell, Mapping[str, Any]]) -> Measures:
    """The rows, metrics and summary of every scenario from the cells' results."""
    found = Measures()
    estimation(grid, results, found)
    separation(grid, results, found)
    drift(grid, results, found)
    matches(grid, results, found)
    return found


def _row(
    scenario: str, profile: str, hands: int, seed: int, metric: str, value: float, **more: Any
) -> dict[str, Any]:
    """A row of the results table (``RESULTS_SPEC`` of ``pipelines/validate.py``); ``more``
    sets ``arm``, ``truth``, ``low`` or ``high`` (else "" and NaN)."""
    row = {"scenario": scenario, "profile": profile, "arm": "", "hands": hands, "seed": seed,
           "metric": metric, "value": value, "truth": NAN, "low": NAN, "high": NAN}  # fmt: skip
    return row | more


def estimation(grid: Grid, results: Mapping[Cell, Mapping[str, Any]], found: Measures) -> None:
    """Error |estimate − truth| per metric and n with its log-log slope, and the coverage of
    the intervals; a metric whose truth is not finite (never given a chance) is skipped."""
    errors: dict[tuple[str, int], list[float]] = defaultdict(list)
    covered: dict[str, list[bool]] = defaultdict(list)
    for name in grid.estimate:
        truth = results[("reference", name, grid.reference_hands)]["truth"]
        for n in grid.hands:
            for i in range(grid.seeds):
                for r in results[("estimation", name, n, i)]["rows"]:
                    t = truth[r["metric"]]
                    if not math.isfinite(t):
                        continue
                    errors[(r["metric"], n)].append(abs(r["estimate"] - t))
                    covered[r["metric"]].append(r["low"] <= t <= r["high"])
                    found.rows.append(_row("estimation", name, n, i, r["metric"], r["estimate"],
                                           truth=t, low=r["low"], high=r["high"]))  # fmt: skip
    if not errors:
        return
    metrics, slopes = found.metrics, []
    for metric in ESTIMATED:
        curve = [float(np.mean(errors[(metric, n)])) for n in grid.hands]
        slope = log_log_slope(grid.hands, curve)
        slopes.append(slope)
        metrics[metric_name("error_slope", metric)] = slope
        metrics[metric_name("coverage", metric)] = float(np.mean(covered[metric]))
        for n, e in zip(grid.hands, curve, strict=True):
            metrics[metric_name("error", metric, f"n={n}")] = e
    overall = [float(np.mean([e for m in ESTIMATED for e in errors[(m, n)]])) for n in grid.hands]
    metrics["error_slope"] = log_log_slope(grid.hands, overall)
    metrics["coverage"] = float(np.mean([c for v in covered.values() for c in v]))
    found.summary.append(["error slope (log-log)", f"{metrics['error_slope']:.2f}",
                          "per metric " + ", ".join(f"{s:.2f}" for s in slopes)])  # fmt: skip
    found.summary.append(["interval coverage", f"{metrics['coverage']:.3f}",
                          f"nominal {grid.level}"])  # fmt: skip


def separation(grid: Grid, results: Mapping[Cell, Mapping[str, Any]], found: Measures) -> None:
    """Per profile pair and n: the share of runs in which some metric's intervals are disjoint."""
    for a, b in grid.pairs:
        shares = []
        for n in grid.hands:
            separated = []
            for i in range(grid.seeds):
                cell = results[("separation", a, b, n, i)]["rows"]
                separated.append(any(r["disjoint"] for r in cell))
                found.rows += [_row("separation", f"{a}|{b}", n, i, r["metric"], r["js"],
                                    high=r["disjoint"]) for r in cell]  # fmt: skip
            share = float(np.mean(separated))
            shares.append(share)
            found.metrics[metric_name("separated", f"{a}_vs_{b}", f"n={n}")] = share
        detail = ", ".join(f"n={n}: {s:.2f}" for n, s in zip(grid.hands, shares, strict=True))
        found.summary.append([f"separated {a} vs {b}", f"{shares[-1]:.2f}", detail])


def drift(grid: Grid, results: Mapping[Cell, Mapping[str, Any]], found: Measures) -> None:
    """Share of shifting runs detected, median and 90th-percentile delay (hands after the
    shift), false alarms per 100 hands watched (stationary player + before the shift)."""
    d, metrics = grid.drift, found.metrics
    delays, early, alarms_stationary = [], 0, 0
    shift = grid.profiles[d.shifted]["shift_after"]
    for i in range(d.runs):
        r = results[("drift", d.shifted, d.hands, i)]
        delays.append(r["delay"])
        early += r["false_alarms"]
        s = results[("drift", d.stationary, d.hands, i)]
        alarms_stationary += s["false_alarms"]
        found.rows.append(_row("drift", d.shifted, d.hands, i, "delay", float(r["delay"])))
        found.rows.append(
            _row("drift", d.stationary, d.hands, i, "false_alarms", float(s["false_alarms"]))
        )
    detected = [x for x in delays if math.isfinite(x)]
    hands_watched = d.runs * d.hands + d.runs * shift
    metrics["drift/detected"] = len(detected) / len(delays)
    metrics["drift/delay_median"] = float(np.median(detected)) if detected else NAN
    metrics["drift/delay_p90"] = float(np.percentile(detected, 90)) if detected else NAN
    metrics["drift/false_alarms_per_100_hands"] = 100 * (alarms_stationary + early) / hands_watched
    found.summary.append(["shift detected", f"{metrics['drift/detected']:.2f}",
                          f"median delay {metrics['drift/delay_median']:.0f} hands, 90th "
                          f"percentile {metrics['drift/delay_p90']:.0f} (of the "
                          f"{len(detected)} of {len(delays)} runs detected)"])  # fmt: skip
    found.summary.append(["false alarms / 100 hands",
                          f"{metrics['drift/false_alarms_per_100_hands']:.2f}",
                          "stationary player + before the shift"])  # fmt: skip


def matches(grid: Grid, results: Mapping[Cell, Mapping[str, Any]], found: Measures) -> None:
    """Per opponent and arm: win rate and tantos margin per hand with 95% intervals; per
    opponent the paired edge model − control; per arm the Brier score of each prediction kind
    (``found.logs`` keeps the predictions, ``found.private`` the model's first summaries)."""
    m, metrics = grid.match, found.metrics
    found.logs = {arm: CalibrationLog() for arm in ARMS}
    for name in m.opponents:
        margins: dict[str, list[float]] = {arm: [] for arm in ARMS}
        for arm in ARMS:
            wins: list[bool] = []
            for i in range(m.series):
                series = results[("match", name, arm, m.games, i)]["series"]
                margins[arm] += series.margins
                wins += series.wins
                for kind, pairs in series.calibration.items():
                    for p, y in pairs:
                        found.logs[arm].add(kind, p, y)
                for g, (margin, won) in enumerate(zip(series.margins, series.wins, strict=True)):
                    for metric, value in (("margin_per_hand", margin), ("win", float(won))):
                        found.rows.append(_row("match", name, m.games, i * m.games + g, metric,
                                               value, arm=arm))  # fmt: skip
                if arm == "model" and i == 0:
                    for lang, lines in series.summary.items():
                        found.private.append(f"[{name}, {lang}] " + " ".join(lines))
            rate, low, high = mean_ci([float(w) for w in wins])
            mean, m_low, m_high = mean_ci(margins[arm])
            base = metric_name("match", name, arm)
            metrics |= {f"{base}/win_rate": rate, f"{base}/win_rate_low": low,
                        f"{base}/win_rate_high": high, f"{base}/margin_per_hand": mean,
                        f"{base}/margin_low": m_low, f"{base}/margin_high": m_high}  # fmt: skip
        edge, low, high = paired_edge(margins["model"], margins["control"])
        metrics |= {metric_name("edge", name): edge, metric_name("edge", name, "low"): low,
                    metric_name("edge", name, "high"): high}  # fmt: skip
        rates = [metrics[metric_name("match", name, arm, "win_rate")] for arm in ARMS]
        found.summary.append([f"edge vs {name} (tantos/hand)", f"{edge:+.2f}",
                              f"95% [{low:+.2f}, {high:+.2f}]; win rate model {rates[0]:.2f} / "
                              f"control {rates[1]:.2f}"])  # fmt: skip
    for arm, log in found.logs.items():
        for kind in log.pairs:
            metrics[metric_name("brier", arm, kind)] = log.brier(kind)
        detail = ", ".join(f"{k} {log.brier(k):.3f}" for k in sorted(log.pairs))
        if detail:
            found.summary.append([f"Brier ({arm})", "", detail])


def error_curves(grid: Grid, results: Mapping[Cell, Mapping[str, Any]]) -> dict[str, list[float]]:
    """Mean |estimate − truth| vs n per estimated metric (over profiles and seeds, NaN truths
    ignored) and the 1/√n reference through the first metric's first point; {} without
    estimation cells."""
    if not grid.estimate:
        return {}
    series: dict[str, list[float]] = {}
    for metric in ESTIMATED:
        curve = []
        for n in grid.hands:
            errors = []
            for p in grid.estimate:
                truth = results[("reference", p, grid.reference_hands)]["truth"][metric]
                for i in range(grid.seeds):
                    errors += [abs(r["estimate"] - truth)
                               for r in results[("estimation", p, n, i)]["rows"]
                               if r["metric"] == metric]  # fmt: skip
            curve.append(float(np.nanmean(errors)))
        series[metric] = curve
    ref = series[ESTIMATED[0]][0] * np.sqrt(grid.hands[0] / np.asarray(grid.hands))
    series["1/sqrt(n)"] = list(ref)
    return series
