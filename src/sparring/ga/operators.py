"""Selection, crossover and mutation of chromosomes (540 genes x (lo, hi) int8).

Every operator takes the random generator explicitly and returns new arrays; parents are never
modified. "Used" masks (which genes a player consulted while being evaluated) steer the
operators that focus on used genes.
"""

from __future__ import annotations

from enum import StrEnum

import numpy as np

from sparring.poker.catalog import N_GENES


class CrossoverOperator(StrEnum):
    """How two parents' genes are combined (specs/poker.md §7)."""

    half_individual = "half_individual"
    half_used = "half_used"
    random_genes = "random_genes"
    used_genes = "used_genes"


class CrossoverPolicy(StrEnum):
    """Which operator a generation uses: in turn, at random, or always the configured one."""

    cycle = "cycle"
    random = "random"
    fixed = "fixed"


CROSSOVERS = tuple(op.value for op in CrossoverOperator)
POLICIES = tuple(policy.value for policy in CrossoverPolicy)
LOW, HIGH = -100, 100


def random_population(size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` chromosomes with uniform thresholds, each pair sorted (lo <= hi)."""
    return np.sort(rng.integers(LOW, HIGH + 1, size=(size, N_GENES, 2)), axis=2).astype(np.int8)


def tournament(fitness: np.ndarray, size: int, rng: np.random.Generator) -> int:
    """Index of the fittest of ``size`` individuals drawn uniformly with replacement
    (ties: the lowest index among the drawn)."""
    drawn = rng.integers(0, len(fitness), size=size)
    return int(drawn[np.argmax(fitness[drawn])])


def _swap_tails(a: np.ndarray, b: np.ndarray, cut: int) -> tuple[np.ndarray, np.ndarray]:
    c1, c2 = a.copy(), b.copy()
    c1[cut:], c2[cut:] = b[cut:], a[cut:]
    return c1, c2


def _swap_genes(a: np.ndarray, b: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c1, c2 = a.copy(), b.copy()
    c1[mask], c2[mask] = b[mask], a[mask]
    return c1, c2


def half_individual(a, b, used_a, rng):
    """Swap the tails after a random cut point 1..539."""
    return _swap_tails(a, b, int(rng.integers(1, N_GENES)))


def median_used_index(used: np.ndarray) -> int:
    """The median index of the used genes (the upper median for an even count); the middle of
    the chromosome when no gene was used."""
    idx = np.flatnonzero(used)
    return int(idx[len(idx) // 2]) if idx.size else N_GENES // 2


def half_used(a, b, used_a, rng):
    """Swap the tails after the median index of the first parent's used genes."""
    return _swap_tails(a, b, median_used_index(used_a))


def random_genes(a, b, used_a, rng):
    """Swap a random subset of genes (each with probability 1/2)."""
    return _swap_genes(a, b, rng.random(N_GENES) < 0.5)


def used_genes(a, b, used_a, rng):
    """Swap a random subset (each with probability 1/2) of the first parent's used genes."""
    return _swap_genes(a, b, used_a & (rng.random(N_GENES) < 0.5))


OPERATORS = {
    "half_individual": half_individual,
    "half_used": half_used,
    "random_genes": random_genes,
    "used_genes": used_genes,
}


def crossover_for_generation(
    policy: str, fixed: str, generation: int, rng: np.random.Generator
) -> str:
    """The one crossover operator of a generation under ``policy``."""
    if policy == "cycle":
        return CROSSOVERS[generation % len(CROSSOVERS)]
    if policy == "random":
        return CROSSOVERS[int(rng.integers(len(CROSSOVERS)))]
    return fixed


def mutate(
    x: np.ndarray, used: np.ndarray, genes: int, variance: float, rng: np.random.Generator
) -> np.ndarray:
    """Move both thresholds of ``genes`` randomly chosen used genes by U(-variance*200,
    +variance*200), clip to [-100, 100] and re-sort each pair. Unused genes never change; with
    no used gene nothing changes."""
    out = x.copy()
    idx = np.flatnonzero(used)
    if idx.size == 0:
        return out
    chosen = rng.choice(idx, size=min(genes, idx.size), replace=False)
    step = rng.uniform(-variance * 200, variance * 200, size=(chosen.size, 2))
    moved = np.clip(np.rint(out[chosen].astype(np.float64) + step), LOW, HIGH)
    out[chosen] = np.sort(moved, axis=1).astype(np.int8)
    return out
