"""Calibration of the bot's predictions (specs/player_model.md §8): "learn from its mistakes".

A ``CalibrationLog`` collects (prediction, outcome) pairs per kind — ``win_lance`` (P(our pair
wins the lance on cards)) and ``bluff`` (P(the bettor's hand is weak)). It reports the Brier
score and the reliability table (per probability bin: mean prediction, observed frequency,
count), and keeps a ``PlattScaler`` per kind: when the Brier score of the latest window is
worse than the one before it, a temperature (Platt scaling, σ(a·logit p + b)) is fitted to the
whole log and applied to later predictions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike

KINDS = ("win_lance", "bluff")
_EPS = 1e-6


def brier(predictions: ArrayLike, outcomes: ArrayLike) -> float:
    """Mean squared error of probabilities against 0/1 outcomes (0 is perfect)."""
    p, y = np.asarray(predictions, float), np.asarray(outcomes, float)
    if p.size == 0:
        return float("nan")
    return float(np.mean((p - y) ** 2))


def reliability(
    predictions: ArrayLike, outcomes: ArrayLike, bins: int = 10
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mean prediction, observed frequency, count) per equal-width bin; empty bins are NaN."""
    p, y = np.asarray(predictions, float), np.asarray(outcomes, float)
    which = np.minimum((p * bins).astype(int), bins - 1)
    count = np.bincount(which, minlength=bins).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_p = np.bincount(which, weights=p, minlength=bins) / count
        freq = np.bincount(which, weights=y, minlength=bins) / count
    return mean_p, freq, count


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, _EPS, 1 - _EPS)
    return np.log(p / (1 - p))


@dataclass
class PlattScaler:
    """p' = σ(a·logit(p) + b); the identity until fitted. 1/a is the temperature."""

    a: float = 1.0
    b: float = 0.0

    def __call__(self, p: float) -> float:
        z = self.a * float(_logit(np.asarray(p))) + self.b
        return float(1 / (1 + np.exp(-z)))

    def fit(self, predictions: ArrayLike, outcomes: ArrayLike, l2: float = 1e-2):
        """Logistic regression of the outcomes on logit(prediction): Newton's method with step
        halving on the penalised log-loss (the ridge towards the identity keeps it finite when
        the outcomes are separable)."""
        x, y = _logit(np.asarray(predictions, float)), np.asarray(outcomes, float)
        features = np.column_stack([x, np.ones_like(x)])
        identity = np.array([1.0, 0.0])

        def loss(w: np.ndarray) -> float:
            z = features @ w
            return float(np.sum(np.logaddexp(0, z) - y * z) + l2 / 2 * np.sum((w - identity) ** 2))

        w = identity.copy()
        for _ in range(100):
            q = 1 / (1 + np.exp(-np.clip(features @ w, -500, 500)))
            grad = features.T @ (q - y) + l2 * (w - identity)
            hess = features.T @ (features * (q * (1 - q))[:, None]) + l2 * np.eye(2)
            step = np.linalg.solve(hess, grad)
            t, current = 1.0, loss(w)
            while loss(w - t * step) > current and t > 1e-8:
                t /= 2
            w = w - t * step
            if np.abs(t * step).max() < 1e-9:
                break
        self.a, self.b = float(w[0]), float(w[1])
        return self


@dataclass
class CalibrationLog:
    """Predictions and outcomes per kind, with a scaler per kind (one log per bot level)."""

    window: int = 200
    pairs: dict[str, list[tuple[float, bool]]] = field(default_factory=dict)
    scalers: dict[str, PlattScaler] = field(default_factory=dict)
    refits: int = 0

    def add(self, kind: str, prediction: float, outcome: bool) -> None:
        if kind not in KINDS:
            raise ValueError(f"calibration kind {kind!r}: expected one of {', '.join(KINDS)}")
        if not 0 <= prediction <= 1:
            raise ValueError(f"a prediction is a probability in [0, 1], got {prediction}")
        self.pairs.setdefault(kind, []).append((float(prediction), bool(outcome)))

    def arrays(self, kind: str) -> tuple[np.ndarray, np.ndarray]:
        rows = self.pairs.get(kind, [])
        return np.array([p for p, _ in rows]), np.array([y for _, y in rows], bool)

    def brier(self, kind: str) -> float:
        return brier(*self.arrays(kind))

    def scale(self, kind: str, p: float) -> float:
        """The calibrated prediction (identity until a temperature has been fitted)."""
        scaler = self.scalers.get(kind)
        return p if scaler is None else scaler(p)

    def check(self) -> list[str]:
        """After a game: refit the temperature of every kind whose latest window is worse than
        the window before it. Returns the kinds refitted."""
        refitted = []
        for kind in list(self.pairs):
            p, y = self.arrays(kind)
            if len(p) < 2 * self.window:
                continue
            recent = brier(p[-self.window :], y[-self.window :])
            before = brier(p[-2 * self.window : -self.window], y[-2 * self.window : -self.window])
            if recent > before:
                self.scalers[kind] = PlattScaler().fit(p, y)
                self.refits += 1
                refitted.append(kind)
        return refitted


def reliability_plot(path: str | Path, log: CalibrationLog, title: str, bins: int = 10) -> Path:
    """A reliability diagram (observed frequency vs prediction per bin) for every kind."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 5), dpi=100)
    ax.plot([0, 1], [0, 1], color="grey", ls="--", lw=0.8, label="perfect")
    for kind in sorted(log.pairs):
        p, y = log.arrays(kind)
        mean_p, freq, count = reliability(p, y, bins)
        ok = count > 0
        label = f"{kind} (Brier {brier(p, y):.3f}, n={len(p)})"
        ax.plot(mean_p[ok], freq[ok], marker="o", label=label)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("predicted probability")
    ax.set_ylabel("observed frequency")
    ax.set_title(title)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return Path(path)
