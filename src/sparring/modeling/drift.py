"""Strategy-change detection (specs/player_model.md §7).

For each monitored metric a ``DriftMonitor`` keeps two estimates of the same rate: a long one
(slow decay per hand) and a recent one (fast decay, a memory of about three hands). A shift is
suspected when

- the Jensen–Shannon divergence between the recent Beta and the long Beta *brought to the recent
  one's evidence* passes ``js_threshold`` — at equal evidence the divergence measures how far
  the rates are apart, not how much more the long model has seen (a narrow long Beta and a wide
  recent one differ a lot even when nothing changed) — or
- a two-sided Page–Hinkley test on the stream of outcomes fires.

Then it emits ``StrategyShiftSuspected(metric, context)``, scales the long model's evidence by
``confidence_factor`` (a decay towards the prior) and, for ``boost_hands`` hands, tells the
judge to give the recent estimate ``boosted_weight`` instead of ``recent_weight``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.special import betaln

from sparring.modeling.rate import Rate

_GRID = (np.arange(2000) + 0.5) / 2000
_LOG_GRID, _LOG1M_GRID = np.log(_GRID), np.log1p(-_GRID)


def _beta_mass(a: float, b: float) -> np.ndarray:
    logp = (a - 1) * _LOG_GRID + (b - 1) * _LOG1M_GRID - betaln(a, b)
    mass = np.exp(logp - logp.max())
    mass[mass < 1e-200] = 0.0  # denormals would make a / m overflow in the divergence
    return mass / mass.sum()


def js_divergence(p: Rate, q: Rate) -> float:
    """Jensen–Shannon divergence (bits, in [0, 1]) between two Beta distributions, on a grid."""
    a, b = _beta_mass(p.alpha, p.beta), _beta_mass(q.alpha, q.beta)
    m = 0.5 * (a + b)
    with np.errstate(divide="ignore", invalid="ignore"):
        kl_a = np.where(a > 0, a * np.log2(a / m), 0.0).sum()
        kl_b = np.where(b > 0, b * np.log2(b / m), 0.0).sum()
    return float(min(max(0.5 * (kl_a + kl_b), 0.0), 1.0))


@dataclass
class PageHinkley:
    """Two-sided Page–Hinkley test on a stream of values (here 0/1 outcomes).

    ``delta`` is the change magnitude tolerated, ``threshold`` (λ) the alarm level, and
    ``min_samples`` observations are needed before an alarm (the running mean must settle)."""

    delta: float = 0.1
    threshold: float = 4.0
    min_samples: int = 10
    n: int = 0
    mean: float = 0.0
    up: float = 0.0
    up_min: float = 0.0
    down: float = 0.0
    down_max: float = 0.0

    def update(self, x: float) -> bool:
        """Add one value; True when a change (up or down) is detected (then the test restarts)."""
        self.n += 1
        self.mean += (x - self.mean) / self.n
        self.up += x - self.mean - self.delta
        self.up_min = min(self.up_min, self.up)
        self.down += x - self.mean + self.delta
        self.down_max = max(self.down_max, self.down)
        fired = self.n >= self.min_samples and (
            self.up - self.up_min > self.threshold or self.down_max - self.down > self.threshold
        )
        if fired:
            self.reset()
        return fired

    def reset(self) -> None:
        self.n, self.mean, self.up, self.up_min, self.down, self.down_max = 0, 0.0, 0, 0, 0, 0


@dataclass(frozen=True)
class StrategyShiftSuspected:
    """A suspected change of ``metric`` in ``context`` (() = overall), found by ``test``."""

    metric: str
    context: tuple[str, ...]
    hand: int
    test: str  # "js" | "page_hinkley"
    long_mean: float
    recent_mean: float


@dataclass
class DriftConfig:
    long_decay: float = 0.995  # per hand
    recent_decay: float = 0.7165  # per hand: exp(-1/3), a memory of about three hands
    # The thresholds below were tuned on Bernoulli streams with ~3 outcomes per hand: about
    # 0.7 false alarms per 100 stationary hands, a 0.2 → 0.7 shift found in a median of 2
    # hands (the validate pipeline measures both on synthetic players).
    js_threshold: float = 0.45
    js_min_recent: float = 4.0  # recent evidence needed before the divergence is trusted
    page_hinkley: tuple[float, float] = (0.1, 8.0)  # delta, lambda
    confidence_factor: float = 0.3
    recent_weight: float = 0.0  # no alarm: the long model (with the session) decides
    boosted_weight: float = 0.7
    boost_hands: int = 10
    cooldown_hands: int = 5  # no second alarm for the same metric within this many hands


@dataclass
class _Track:
    long: Rate
    recent: Rate
    ph: PageHinkley
    boost_until: int = -1
    quiet_until: int = -1


@dataclass
class DriftMonitor:
    """Long and recent estimates per (metric, context) and the two tests."""

    config: DriftConfig = field(default_factory=DriftConfig)
    prior: tuple[float, float] = (1.0, 1.0)
    hand: int = 0
    tracks: dict[tuple[str, tuple[str, ...]], _Track] = field(default_factory=dict)
    events: list[StrategyShiftSuspected] = field(default_factory=list)
    reported: int = 0

    def _track(self, metric: str, context: tuple[str, ...]) -> _Track:
        key = (metric, context)
        if key not in self.tracks:
            delta, lam = self.config.page_hinkley
            self.tracks[key] = _Track(
                Rate.with_prior(*self.prior), Rate.with_prior(*self.prior), PageHinkley(delta, lam)
            )
        return self.tracks[key]

    def observe(self, metric: str, success: bool, context: tuple[str, ...] = ()) -> None:
        """One outcome (within the current hand)."""
        t = self._track(metric, context)
        t.long.update(success)
        t.recent.update(success)
        if t.ph.update(float(success)) and self.hand >= t.quiet_until:
            self._alarm(metric, context, t, "page_hinkley")

    def end_hand(self) -> list[StrategyShiftSuspected]:
        """Close a hand: run the divergence test, decay both estimates; returns the events
        raised during the hand (Page–Hinkley fires per outcome, the divergence test here)."""
        for (metric, context), t in self.tracks.items():
            if (
                self.hand >= t.quiet_until
                and t.recent.n() >= self.config.js_min_recent
                and self.divergence(metric, context) > self.config.js_threshold
            ):
                self._alarm(metric, context, t, "js")
            t.long.decay(self.config.long_decay)
            t.recent.decay(self.config.recent_decay)
        self.hand += 1
        new = self.events[self.reported :]
        self.reported = len(self.events)
        return new

    def divergence(self, metric: str, context: tuple[str, ...] = ()) -> float:
        """JS divergence between the recent Beta and the long one at the recent's evidence."""
        t = self._track(metric, context)
        total = t.recent.alpha + t.recent.beta
        m = t.long.mean()
        return js_divergence(t.recent, Rate(m * total, (1 - m) * total))

    def _alarm(self, metric: str, context: tuple[str, ...], t: _Track, test: str) -> None:
        self.events.append(
            StrategyShiftSuspected(metric, context, self.hand, test, t.long.mean(), t.recent.mean())
        )
        t.long.decay(self.config.confidence_factor)
        t.ph.reset()
        t.boost_until = self.hand + self.config.boost_hands
        t.quiet_until = self.hand + self.config.cooldown_hands

    def recent_weight(self, metric: str, context: tuple[str, ...] = ()) -> float:
        """How much the judge should trust the recent estimate now."""
        t = self.tracks.get((metric, context))
        if t is None:
            return 0.0
        boosted = self.hand < t.boost_until
        return self.config.boosted_weight if boosted else self.config.recent_weight

    def confidence_scale(self, metric: str, context: tuple[str, ...] = ()) -> float:
        """Factor for the long-term model's evidence: < 1 while a shift is suspected."""
        t = self.tracks.get((metric, context))
        boosted = t is not None and self.hand < t.boost_until
        return self.config.confidence_factor if boosted else 1.0

    def recent(self, metric: str, context: tuple[str, ...] = ()) -> Rate:
        return self._track(metric, context).recent

    def long(self, metric: str, context: tuple[str, ...] = ()) -> Rate:
        return self._track(metric, context).long
