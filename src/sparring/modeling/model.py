"""``PlayerModel``: counters per (metric, context) with hierarchical back-off (§5).

Counts, not transcripts: for each metric and each key of the back-off chain
(lance, score, phase, position) → (lance, score) → (lance) → () the model keeps successes and
failures. An estimate starts at the population prior for the metric, and each more specific
level takes the level above it as its prior with the weight of ``k`` observations.

``BehaviourModel`` is the protocol the judge and the bots rely on, so another model (a
classifier, a sequence model) can replace this one without touching them.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from sparring.modeling.metrics import Context
from sparring.modeling.rate import Rate

ContextKey = tuple[str, ...]

# Population priors (mean, weight) per metric: what a bot assumes of an unknown player — and
# all the control bot ever assumes. Means are those of a middle-of-the-road player.
POPULATION: dict[str, tuple[float, float]] = {
    "aggression": (0.3, 4.0),
    "bluff_frequency": (0.25, 4.0),
    "risk_tolerance": (0.3, 4.0),
    "acceptance_rate": (0.5, 4.0),
    "rejection_rate": (0.5, 4.0),
    "raise_rate": (0.1, 4.0),
    "ordago_rate": (0.02, 4.0),
    "mus_rate": (0.5, 4.0),
}


def population_prior(metric: str) -> tuple[float, float]:
    """(α₀, β₀) of the population prior for ``metric`` (uniform for unknown metrics)."""
    mean, weight = POPULATION.get(metric, (0.5, 2.0))
    return mean * weight, (1 - mean) * weight


def _levels(context: Context | ContextKey | None) -> list[ContextKey]:
    """The back-off keys from the most general to ``context`` (a Context, a partial key such
    as ("grande",) or ("grande", "behind"), or None for overall)."""
    if context is None:
        return [()]
    key = context.chain()[0] if isinstance(context, Context) else tuple(context)
    return list(dict.fromkeys(((), key[:1], key[:2], key)))  # drops repeats of short keys


def _backed_off(model: PlayerModel, metric: str, context, count) -> Rate:
    """Population prior → () → (lance) → (lance, score) → full context, each level the prior
    of the next with weight k; ``count(key)`` gives (successes, failures) at a level."""
    chain = _levels(context)
    rate = Rate.with_prior(*model.prior(metric))
    for key in chain:
        if key != ():
            rate = Rate.shrunk_to(rate.mean(), model.k)
        s, f = count((metric, key))
        rate.alpha += s
        rate.beta += f
    return rate


class BehaviourModel(Protocol):
    """What the judge needs from a model of one player."""

    player_id: str

    def observe(self, metric: str, context: Context, success: bool, weight: float = 1.0): ...
    def estimate(self, metric: str, context: Context | None = None) -> Rate: ...
    def statement(self, metric: str, context: Context | None = None) -> str: ...


@dataclass
class PlayerModel:
    player_id: str
    k: float = 10.0
    priors: Mapping[str, tuple[float, float]] | None = None  # None: the population priors
    counts: dict[tuple[str, ContextKey], list[float]] = field(
        default_factory=lambda: defaultdict(lambda: [0.0, 0.0])
    )
    sample_size: int = 0  # hands observed
    last_updated: float = 0.0

    def prior(self, metric: str) -> tuple[float, float]:
        if self.priors is not None and metric in self.priors:
            return self.priors[metric]
        return population_prior(metric)

    def observe(self, metric: str, context: Context, success: bool, weight: float = 1.0) -> None:
        for key in context.chain():
            self.counts[(metric, key)][0 if success else 1] += weight
        self.last_updated = time.time()

    def observe_all(self, items: Iterable[tuple[str, Context, bool]]) -> None:
        for metric, context, success in items:
            self.observe(metric, context, success)

    def estimate(self, metric: str, context: Context | ContextKey | None = None) -> Rate:
        """The backed-off rate for ``metric`` in ``context`` (None = overall; a partial key
        such as ("grande",) stops the back-off at that level)."""
        return _backed_off(self, metric, context, lambda key: self.counts.get(key, (0.0, 0.0)))

    def statement(self, metric: str, context: Context | None = None) -> str:
        return self.estimate(metric, context).describe(metric.replace("_frequency", ""))

    def decay(self, factor: float) -> None:
        """Forget towards the prior: every counter is scaled by ``factor``."""
        for c in self.counts.values():
            c[0] *= factor
            c[1] *= factor

    def merged(self, other: PlayerModel, scale: float = 1.0) -> MergedModel:
        """This model's counters times ``scale`` plus ``other``'s, as a read-only view."""
        return MergedModel(self, other, scale)


@dataclass
class MergedModel:
    """A read-only sum of two models' counters (the first scaled), with the same estimates
    as a PlayerModel holding that sum; nothing is copied."""

    base: PlayerModel
    extra: PlayerModel
    scale: float = 1.0

    def count(self, key: tuple[str, ContextKey]) -> tuple[float, float]:
        s1, f1 = self.base.counts.get(key, (0.0, 0.0))
        s2, f2 = self.extra.counts.get(key, (0.0, 0.0))
        return s1 * self.scale + s2, f1 * self.scale + f2

    def estimate(self, metric: str, context: Context | ContextKey | None = None) -> Rate:
        return _backed_off(self.base, metric, context, self.count)
