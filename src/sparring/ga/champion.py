"""The champion's benchmark: held-out deals against each baseline table, bb/100 with 95% CIs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sparring.ga.fitness import bb_per_100
from sparring.poker.bots import BASELINES, baseline_table
from sparring.poker.engine import play_deals


@dataclass(frozen=True)
class TableResult:
    table: str
    bb_per_100: float
    ci_low: float
    ci_high: float
    deals: int


def per_deal_ci(net_per_deal: np.ndarray, hands_per_deal: int) -> tuple[float, float, float]:
    """Mean bb/100 and its 95% normal interval from per-deal results."""
    x = np.asarray(bb_per_100(net_per_deal, hands_per_deal))
    mean = float(x.mean())
    half = 1.96 * float(x.std(ddof=1)) / np.sqrt(len(x)) if len(x) > 1 else float("inf")
    return mean, float(mean - half), float(mean + half)


def benchmark(
    champion: np.ndarray,
    equity: np.ndarray,
    strength: np.ndarray,
    raise_factor: float,
    call_factor: float,
    seed: int = 0,
    tables: tuple[str, ...] = BASELINES,
) -> list[TableResult]:
    """The champion as player 0 against N-1 copies of each baseline table."""
    n = strength.shape[1]
    out = []
    for name in tables:
        table = np.concatenate([champion[None], baseline_table(name, n - 1, seed=seed)])
        result = play_deals(equity, strength, table, raise_factor, call_factor)
        mean, lo, hi = per_deal_ci(result.net_per_deal[:, 0], n * n)
        out.append(TableResult(name, mean, lo, hi, len(strength)))
    return out
