"""``PlayerModel``: counters per (metric, context) with hierarchical back-off (§5).

Counts, not transcripts: for each metric and each key of the back-off chain
(lance, score, phase, position) → (lance, score) → (lance) → () the model keeps successes and
failures. An estimate starts at the population prior for the metric, and each more specific
level takes the level above it as its prior with the weight of ``k`` observations.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from sparring.modeling.metrics import Context
from sparring.modeling.rate import Rate

ContextKey = tuple[str, ...]


@dataclass
class PlayerModel:
    player_id: str
    k: float = 10.0
    prior: tuple[float, float] = (1.0, 1.0)
    counts: dict[tuple[str, ContextKey], list[float]] = field(
        default_factory=lambda: defaultdict(lambda: [0.0, 0.0])
    )

    def observe(self, metric: str, context: Context, success: bool, weight: float = 1.0) -> None:
        for key in context.chain():
            self.counts[(metric, key)][0 if success else 1] += weight

    def observe_all(self, items: Iterable[tuple[str, Context, bool]]) -> None:
        for metric, context, success in items:
            self.observe(metric, context, success)

    def estimate(self, metric: str, context: Context | None = None) -> Rate:
        """The backed-off rate for ``metric`` in ``context`` (None = overall)."""
        chain = [()] if context is None else list(reversed(context.chain()))
        rate = Rate.with_prior(*self.prior)
        for key in chain:
            if key != ():
                rate = Rate.shrunk_to(rate.mean(), self.k)
            s, f = self.counts.get((metric, key), (0.0, 0.0))
            rate.alpha += s
            rate.beta += f
        return rate

    def statement(self, metric: str, context: Context | None = None) -> str:
        return self.estimate(metric, context).describe(metric.replace("_frequency", ""))
