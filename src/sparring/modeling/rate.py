"""``Rate``: a Beta(α, β) behaviour rate with a prior, forgetting and readable confidence
(specs/player_model.md §2).
"""

from __future__ import annotations

from dataclasses import dataclass

# The Beta quantile from scipy.special (Boost's inverse incomplete beta, equal to the bit to
# scipy.stats.beta.ppf on 20,000 random cases): importing scipy.stats costs ~1.4 s more in
# every process that loads a player model.
from scipy.special import betaincinv

CONFIDENCE_CUTS = (10.0, 30.0)  # effective sample size: < 10 low, < 30 medium, else high


@dataclass
class Rate:
    """A rate with prior Beta(alpha0, beta0); ``alpha``/``beta`` start at the prior."""

    alpha: float = 1.0
    beta: float = 1.0
    alpha0: float = 1.0
    beta0: float = 1.0

    @classmethod
    def with_prior(cls, alpha0: float = 1.0, beta0: float = 1.0) -> Rate:
        if alpha0 <= 0 or beta0 <= 0:
            raise ValueError(f"a Beta prior needs alpha0, beta0 > 0, got {alpha0}, {beta0}")
        return cls(alpha0, beta0, alpha0, beta0)

    @classmethod
    def shrunk_to(cls, parent_mean: float, k: float = 10.0) -> Rate:
        """The back-off prior: the parent's mean with the weight of k observations (§4)."""
        m = min(max(parent_mean, 1e-6), 1 - 1e-6)
        return cls.with_prior(k * m, k * (1 - m))

    def mean(self) -> float:
        return self.alpha / (self.alpha + self.beta)

    def n(self) -> float:
        """Effective sample size: the evidence beyond the prior."""
        return self.alpha + self.beta - self.alpha0 - self.beta0

    def interval(self, level: float = 0.9) -> tuple[float, float]:
        """Equal-tailed credible interval."""
        if not 0 < level < 1:
            raise ValueError(f"level must be in (0, 1), got {level}")
        tail = (1 - level) / 2
        return (
            float(betaincinv(self.alpha, self.beta, tail)),
            float(betaincinv(self.alpha, self.beta, 1 - tail)),
        )

    def confidence(self, cuts: tuple[float, float] = CONFIDENCE_CUTS) -> tuple[float, str]:
        """A number in [0, 1) growing with the evidence, and its label low / medium / high."""
        n = max(self.n(), 0.0)
        label = "low" if n < cuts[0] else "medium" if n < cuts[1] else "high"
        return n / (n + cuts[1]), label

    def update(self, success: bool, weight: float = 1.0) -> None:
        if weight < 0:
            raise ValueError(f"weight must be >= 0, got {weight}")
        if success:
            self.alpha += weight
        else:
            self.beta += weight

    def decay(self, factor: float) -> None:
        """Exponential forgetting towards the prior: α ← α₀ + factor·(α − α₀), β likewise."""
        if not 0 <= factor <= 1:
            raise ValueError(f"decay factor must be in [0, 1], got {factor}")
        self.alpha = self.alpha0 + factor * (self.alpha - self.alpha0)
        self.beta = self.beta0 + factor * (self.beta - self.beta0)

    def describe(self, name: str) -> str:
        """E.g. "P(bluff) = 0.68 (medium confidence, n = 14)"."""
        return (
            f"P({name}) = {self.mean():.2f} ({self.confidence()[1]} confidence, n = {self.n():.0f})"
        )
