"""The sequential probability ratio test of a head-to-head, as fishtest and fastchess run it.

Hypotheses on the Elo difference of A over B (logistic Elo): H0 ``elo = elo0`` against H1
``elo = elo1``, with error rates ``alpha`` (accepting H1 when H0 holds) and ``beta`` (accepting
H0 when H1 holds). Every unit of play (a game pair with sides swapped, a duplicate block) gives
A a score in [0, 1]; with ``n`` units of mean ``m`` and variance ``v`` the generalised SPRT's
log-likelihood ratio is (Van den Bergh's normal approximation)

    LLR = n * (s1 - s0) * (2 m - s0 - s1) / (2 v),   s = 1 / (1 + 10^(-elo / 400)),

where v is the units' variance with one pseudo-unit of the largest variance (1/4) mixed in,
``v = (n * var + 1/4) / (n + 1)``: without it an agent that wins every unit (variance 0) would
never be decided; its weight fades as units come in.

and the test stops at the first unit where LLR leaves (ln(beta / (1 - alpha)),
ln((1 - beta) / alpha)): below, H0 is accepted; above, H1; at ``max_units``, neither.
Scores over units, not games, keep the pair's correlation (pentanomial) in the variance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from sparring.runtime.errors import ConfigError

MIN_UNITS = 2  # a variance needs two units; before that the test goes on
PSEUDO_VARIANCE = 0.25  # one pseudo-unit of the largest variance a score in [0, 1] can have


def expected_score(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def gsprt_path(
    scores: np.ndarray, s0: float, s1: float, pseudo_variance: float, min_units: int
) -> np.ndarray:
    """The generalised SPRT's LLR after each score (the module docstring's formula) for the
    means ``s0`` (H0) and ``s1`` (H1); ``pseudo_variance``: one pseudo-unit of that variance
    mixed in (0: the sample's own variance); 0 before ``min_units``."""
    x = np.asarray(scores, np.float64)
    n = np.arange(1, x.size + 1, dtype=np.float64)
    mean = np.cumsum(x) / n
    spread = np.maximum(np.cumsum(x * x) - n * mean * mean, 0.0)
    var = (spread + pseudo_variance) / (n + 1) if pseudo_variance else spread / n
    with np.errstate(divide="ignore", invalid="ignore"):
        llr = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
    llr[n < max(min_units, MIN_UNITS)] = 0.0
    # no spread: +-inf (certain) when the mean is off the midpoint, nothing learnt (0) on it
    return np.where(np.isnan(llr), 0.0, llr)


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """(lower, upper): accept H0 at or below the lower, H1 at or above the upper."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def first_exit(path: np.ndarray, alpha: float, beta: float, max_units: int) -> tuple[str, int]:
    """(``H0`` | ``H1`` | ``none`` | ``continue``, units used) of an LLR path: where it first
    leaves the bounds, ``none`` at ``max_units``, ``continue`` when it ends before both."""
    lower, upper = bounds(alpha, beta)
    out = np.flatnonzero((path <= lower) | (path >= upper))
    if out.size:
        i = int(out[0])
        return ("H1" if path[i] >= upper else "H0"), i + 1
    if path.size >= max_units:
        return "none", max_units
    return "continue", int(path.size)


def fixed_size(alpha: float, beta: float, gap: float, variance: float) -> int:
    """The units a fixed-size one-sided z-test needs to tell two means ``gap`` apart with
    error rates ``alpha`` and ``beta`` at the per-unit ``variance``."""
    z = NormalDist().inv_cdf
    return math.ceil(((z(1 - alpha) + z(1 - beta)) * math.sqrt(variance) / gap) ** 2)


@dataclass(frozen=True)
class SPRT:
    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    max_units: int = 10_000

    def __post_init__(self) -> None:
        if not self.elo1 > self.elo0:
            raise ConfigError("sprt.elo1", self.elo1, f"a number above elo0={self.elo0}")
        for name in ("alpha", "beta"):
            if not 0 < getattr(self, name) < 0.5:
                raise ConfigError(f"sprt.{name}", getattr(self, name), "a number in (0, 0.5)")
        if not self.max_units >= MIN_UNITS:
            raise ConfigError("sprt.max_units", self.max_units, f"an integer >= {MIN_UNITS}")

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper): accept H0 at or below the lower, H1 at or above the upper."""
        return bounds(self.alpha, self.beta)

    def llr_path(self, scores: np.ndarray) -> np.ndarray:
        """The LLR after each unit of ``scores`` (A's score per unit, in [0, 1]); 0 before
        ``MIN_UNITS``."""
        s0, s1 = expected_score(self.elo0), expected_score(self.elo1)
        return gsprt_path(scores, s0, s1, PSEUDO_VARIANCE, MIN_UNITS)

    def decide(self, scores: np.ndarray) -> tuple[str, int]:
        """(``H0`` | ``H1`` | ``none``, units used): where the path first leaves the bounds,
        or ``none`` at ``max_units`` (or when the scores run out first: ``continue``)."""
        path = self.llr_path(np.asarray(scores)[: self.max_units])
        return first_exit(path, self.alpha, self.beta, self.max_units)

    def fixed_units(self, variance: float) -> int:
        """The units a fixed-size test needs for the same ``alpha`` and ``beta`` (a one-sided
        z-test of elo0 against elo1) at the per-unit score ``variance``."""
        gap = expected_score(self.elo1) - expected_score(self.elo0)
        return fixed_size(self.alpha, self.beta, gap, variance)


@dataclass(frozen=True)
class MeanSPRT:
    """The same test on the mean of unbounded per-unit outcomes (retrain's per-deal edges in
    bb/100): H0 ``mean = mean0`` against H1 ``mean = mean1``, the variance the sample's own
    (no pseudo-unit: the outcomes have no largest variance), no decision before ``min_units``
    (a variance of a few heavy-tailed outcomes is no estimate). The caller checks the values
    (``config.evolve.PromotionSPRT``)."""

    mean0: float
    mean1: float
    alpha: float = 0.05
    beta: float = 0.05
    max_units: int = 100_000
    min_units: int = 30

    def llr_path(self, outcomes: np.ndarray) -> np.ndarray:
        return gsprt_path(outcomes, self.mean0, self.mean1, 0.0, self.min_units)

    def decide(self, outcomes: np.ndarray) -> tuple[str, int]:
        """As ``SPRT.decide``; the outcomes must be finite numbers."""
        x = np.asarray(outcomes, np.float64)[: self.max_units]
        if not np.isfinite(x).all():
            raise ValueError("an SPRT's outcomes must be finite numbers")
        path = self.llr_path(x)
        return first_exit(path, self.alpha, self.beta, self.max_units)

    def fixed_units(self, variance: float) -> int:
        """The units a fixed-size test at the same error rates needs (``fixed_size``)."""
        return fixed_size(self.alpha, self.beta, self.mean1 - self.mean0, variance)


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson 95% interval of a proportion."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    spread = math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    half = z * spread / (1 + z * z / trials)
    return max(0.0, centre - half), min(1.0, centre + half)
