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
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr_path(self, scores: np.ndarray) -> np.ndarray:
        """The LLR after each unit of ``scores`` (A's score per unit, in [0, 1]); 0 before
        ``MIN_UNITS``."""
        x = np.asarray(scores, np.float64)
        n = np.arange(1, x.size + 1, dtype=np.float64)
        mean = np.cumsum(x) / n
        var = (np.cumsum(x * x) - n * mean * mean + PSEUDO_VARIANCE) / (n + 1)
        s0, s1 = expected_score(self.elo0), expected_score(self.elo1)
        with np.errstate(divide="ignore", invalid="ignore"):
            llr = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
        llr[n < MIN_UNITS] = 0.0
        return llr

    def decide(self, scores: np.ndarray) -> tuple[str, int]:
        """(``H0`` | ``H1`` | ``none``, units used): where the path first leaves the bounds,
        or ``none`` at ``max_units`` (or when the scores run out first: ``continue``)."""
        path = self.llr_path(np.asarray(scores)[: self.max_units])
        lower, upper = self.bounds
        out = np.flatnonzero((path <= lower) | (path >= upper))
        if out.size:
            i = int(out[0])
            return ("H1" if path[i] >= upper else "H0"), i + 1
        if path.size >= self.max_units:
            return "none", self.max_units
        return "continue", int(path.size)

    def fixed_units(self, variance: float) -> int:
        """The units a fixed-size test needs for the same ``alpha`` and ``beta`` (a one-sided
        z-test of elo0 against elo1) at the per-unit score ``variance``."""
        z = NormalDist().inv_cdf
        gap = expected_score(self.elo1) - expected_score(self.elo0)
        return math.ceil(((z(1 - self.alpha) + z(1 - self.beta)) * math.sqrt(variance) / gap) ** 2)


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson 95% interval of a proportion."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    spread = math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    half = z * spread / (1 + z * z / trials)
    return max(0.0, centre - half), min(1.0, centre + half)
