"""Retrain's promotion by SPRT against the fixed-size test: how many held-out deals each needs
at the same error rates.

    python benchmarks/promotion.py [--quick]

1. Real challengers against a tight-aggressive champion at 10 seats on the default held-out
   set (2,000 deals; ``--quick``: 500): the baseline chromosomes and mutants of the champion.
   For each, the fixed test's decision on every deal (``ga.promotion.decide``) and the SPRT's
   (``retrain.test=sprt``, its defaults: edge 0 against 2 bb/100, alpha = beta = 0.05,
   looks of 25 deals), with the deals the SPRT played.
2. The error rates and the average deals, simulated for each mutant: its per-deal edges
   resampled (centred, then shifted to the true edge edge0 = 0 or edge1 = 2 bb/100), 400 tests
   each (``--quick``: 100). The fixed-size test at the same alpha and beta plays
   ``MeanSPRT.fixed_units`` deals at the edges' variance (its power at edge1 is 1 - beta by
   construction); the SPRT stops at its first verdict. Both error rates are measured.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import parser, report

from sparring.arena.sprt import wilson
from sparring.config.evolve import PromotionSPRT
from sparring.ga.operators import mutate
from sparring.ga.promotion import decide, paired_edges
from sparring.poker.bots import baseline, tight_aggressive
from sparring.poker.deal_generation import generate_deals

SEATS = 10
RF, CF = 1.6, 1.1


def looks(edges: np.ndarray, look: int, test) -> tuple[str, int]:
    """The SPRT as retrain runs it: a verdict only at the end of a look."""
    for stop in range(look, len(edges) + look, look):
        verdict, used = test.decide(edges[:stop])
        if verdict != "continue":
            return verdict, used
    return "none", len(edges)


def mutants(count: int, seed: int) -> list[np.ndarray]:
    """The champion with 60 genes moved by up to 20 points: challengers close to it."""
    rng = np.random.default_rng(seed)
    every = np.ones(tight_aggressive().shape[0], dtype=bool)
    return [mutate(tight_aggressive(), every, 60, 0.1, rng) for _ in range(count)]


def main() -> None:
    args = parser(__doc__).parse_args()
    held_out = 500 if args.quick else 2000
    tests = 100 if args.quick else 400
    section = PromotionSPRT()
    sprt = section.test(10**6)
    deals, _ = generate_deals(0, held_out, n_seats=SEATS, equity_trials=200, seed=2)
    champion = tight_aggressive()
    challengers = {name: baseline(name) for name in ("calling_station", "maniac", "random")}
    challengers |= {f"mutant {k}": genes for k, genes in enumerate(mutants(4, 7))}
    rows: list[tuple[str, float, str]] = []
    real = {}
    edges_of = {}
    for name, genes in challengers.items():
        edges = paired_edges(genes, champion, deals.equity, deals.strength, RF, CF, 0)
        edges_of[name] = edges
        fixed = decide(edges, 0.95)
        verdict, used = looks(edges, section.look, sprt)
        real[name] = {"mean": float(edges.mean()), "sd": float(edges.std(ddof=1)),
                      "fixed": fixed.decision, "sprt": verdict, "sprt_deals": used}  # fmt: skip
        what = f"{name}: edge {edges.mean():+.1f} bb/100, sd {edges.std(ddof=1):.0f}"
        rows.append((what, used, f"SPRT {verdict} in deals; fixed ({held_out}): {fixed.decision}"))
    # the error rates and deals, simulated from each mutant's edges (centred, then shifted)
    z = 1.6448536269514722  # the fixed test: the 95% lower bound above zero
    rng = np.random.default_rng(2026)
    simulated = {}
    for name in (n for n in edges_of if n.startswith("mutant")):
        centred = edges_of[name] - edges_of[name].mean()
        kurtosis = float(np.mean(centred**4) / np.var(centred) ** 2)
        n_fixed = sprt.fixed_units(float(centred.var(ddof=1)))
        figures = {"sd": float(centred.std(ddof=1)), "kurtosis": kurtosis, "fixed_deals": n_fixed}
        for label, true in (("H0", section.edge0), ("H1", section.edge1)):
            draws = centred[rng.integers(0, len(centred), size=(tests, 20 * n_fixed))] + true
            outcomes = [looks(row, section.look, sprt) for row in draws]
            h1 = sum(v == "H1" for v, _ in outcomes)
            wrong = h1 if label == "H0" else tests - h1
            part = draws[:, :n_fixed]
            lower = part.mean(1) - z * part.std(1, ddof=1) / math.sqrt(n_fixed)
            fixed_wrong = int((lower > 0).sum()) if label == "H0" else int((lower <= 0).sum())
            figures[label] = {
                "sprt_error": wrong / tests,
                "sprt_error_interval": list(wilson(wrong, tests)),
                "sprt_mean_deals": float(np.mean([u for _, u in outcomes])),
                "fixed_error": fixed_wrong / tests,
            }
        simulated[name] = figures
        h0, h1f = figures["H0"], figures["H1"]
        mean_deals = (h0["sprt_mean_deals"] + h1f["sprt_mean_deals"]) / 2
        note = (
            f"{mean_deals / n_fixed:.2f}x the fixed {n_fixed}; alpha {h0['sprt_error']:.3f} "
            f"(fixed {h0['fixed_error']:.3f}), beta {h1f['sprt_error']:.3f} "
            f"(fixed {h1f['fixed_error']:.3f})"
        )
        what = f"{name} (sd {figures['sd']:.0f}, kurtosis {kurtosis:.0f}): SPRT deals"
        rows.append((what, mean_deals, note))
    report(
        "promotion",
        rows,
        {"held_out": held_out, "real": real, "simulated": simulated, "tests": tests},
    )


if __name__ == "__main__":
    main()
