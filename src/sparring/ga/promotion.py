"""The promotion rule of retraining: a challenger replaces the champion only with confidence.

Challenger and champion play the same held-out deals against the same baseline tables, so each
deal gives a paired difference of their bb/100 (``paired_edges``). From those per-deal edges
``decide`` takes the mean, its standard error ``sd / sqrt(n)`` (infinite for a single deal), the
normal quantile ``z`` of the configured confidence and the interval ``mean ± z · se``; the
challenger is promoted exactly when the interval's lower bound is above zero (a one-sided test at
that confidence).

With a sequential test (``retrain.test=sprt``) the deals are played in looks until the SPRT on
the per-deal edges accepts H0 or H1 (``arena.sprt.MeanSPRT``); the challenger is promoted
exactly when it accepts H1, and ``Sequential`` records the verdict, the log-likelihood ratio
and the deals a fixed-size test at the same error rates would have needed. Pure: no Ray, no
MLflow.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri  # the normal quantile (scipy.stats.norm.ppf, ~1.4 s lighter)

from sparring.ga.fitness import bb_per_100
from sparring.poker.bots import BASELINES, baseline_table
from sparring.poker.engine import play_deals

__all__ = ["Promotion", "Sequential", "decide", "paired_edges"]


def paired_edges(
    challenger: np.ndarray,
    champion: np.ndarray,
    equity: np.ndarray,
    strength: np.ndarray,
    raise_factor: float,
    call_factor: float,
    seed: int,
) -> np.ndarray:
    """Per held-out deal: challenger's minus champion's bb/100 as player 0, averaged over the
    baseline tables (the same deals and opponents for both: a paired comparison)."""
    n = strength.shape[1]
    diffs = []
    for name in BASELINES:
        others = baseline_table(name, n - 1, seed=seed)
        results = [
            play_deals(
                equity, strength, np.concatenate([p[None], others]), raise_factor, call_factor
            )
            for p in (challenger, champion)
        ]
        diffs.append(
            np.asarray(
                bb_per_100(results[0].net_per_deal[:, 0] - results[1].net_per_deal[:, 0], n * n)
            )
        )
    return np.mean(diffs, axis=0)


@dataclass(frozen=True)
class Sequential:
    """What a sequential test said: ``verdict`` (``H1`` promote, ``H0`` keep, ``none``: the
    held-out deals ran out first, keep), its last ``llr``, and ``fixed_deals``: the deals a
    fixed-size test with the same error rates needs at the edges' variance."""

    verdict: str
    llr: float
    fixed_deals: int
    available: int  # the held-out deals it could have played


@dataclass(frozen=True)
class Promotion:
    """What the per-deal edges say: the mean edge (bb/100), its standard error, the normal
    quantile ``z`` of ``confidence``, the interval ``[low, high]`` and the number of deals."""

    mean: float
    se: float
    z: float
    low: float
    high: float
    deals: int
    confidence: float
    sequential: Sequential | None = None

    @property
    def promote(self) -> bool:
        """Promote only when the whole interval is above zero (with a sequential test: when
        it accepted H1)."""
        if self.sequential is not None:
            return self.sequential.verdict == "H1"
        return self.low > 0

    @property
    def decision(self) -> str:
        return "promoted" if self.promote else "kept"

    def metrics(self) -> dict[str, float]:
        """The retrain run's metrics of the decision (names as logged to MLflow)."""
        out = {
            "edge_bb100": self.mean,
            "edge_low": self.low,
            "edge_high": self.high,
            "edge_se": self.se,
            "confidence": self.confidence,
            "heldout_deals": self.deals,
            "promoted": float(self.promote),
        }
        if self.sequential is not None:
            s = self.sequential
            out.update(
                sprt_llr=float(np.clip(s.llr, -1e6, 1e6)),  # +-inf: no spread at all (certain)
                sprt_h1=float(s.verdict == "H1"),
                sprt_decided=float(s.verdict in ("H0", "H1")),
                sprt_fixed_deals=float(s.fixed_deals),
                sprt_deals_saved=float(s.fixed_deals - self.deals),
            )
        return out


def decide(
    edges: np.ndarray, confidence: float, sequential: Sequential | None = None
) -> Promotion:
    """The promotion rule on per-deal edges at ``confidence`` (e.g. 0.95: z = 1.645); with
    ``sequential``, the edges are those the sequential test played and its verdict decides
    (the interval is then a description)."""
    edges = np.asarray(edges, dtype=float)
    mean = float(edges.mean())
    se = float(edges.std(ddof=1) / np.sqrt(len(edges))) if len(edges) > 1 else float("inf")
    z = float(ndtri(confidence))
    return Promotion(
        mean, se, z, mean - z * se, mean + z * se, len(edges), confidence, sequential
    )
