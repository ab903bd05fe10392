"""Baseline players as chromosomes built by formula, so one engine plays everything.

- calling station: always checks or calls (thresholds lo = -100, hi = 100: it raises only
  with a certain winner, v = 100);
- maniac: always bets or raises (lo = hi = -100);
- random: uniform thresholds, sorted;
- tight-aggressive: calls when its equity beats the pot odds of the gene's situation and
  raises when its equity is at least 1.5 x its fair share 1/(k+1);
- a mixed table: a fixed blend of the above.
"""

from __future__ import annotations

import numpy as np

from sparring.poker.catalog import BASELINES, N_GENES
from sparring.poker.rules import BIG_BET, bet_size, decision_value

_MIX = BASELINES[:-1]  # the players of a "mixed" table


def _decode(gene: int) -> tuple[int, int, int, int, int]:
    """(street 1..3, opponents 1..5, to-act bucket, bets-to-call bucket, pot bucket)."""
    pot = gene % 3
    call = gene // 3 % 4
    act = gene // 12 % 3
    opp = gene // 36 % 5 + 1
    street = gene // 180 + 1
    return street, opp, act, call, pot


def calling_station() -> np.ndarray:
    genes = np.empty((N_GENES, 2), dtype=np.int8)
    genes[:, 0], genes[:, 1] = -100, 100
    return genes


def maniac() -> np.ndarray:
    return np.full((N_GENES, 2), -100, dtype=np.int8)


def random_player(rng: np.random.Generator) -> np.ndarray:
    return np.sort(rng.integers(-100, 101, size=(N_GENES, 2)), axis=1).astype(np.int8)


def tight_aggressive() -> np.ndarray:
    pot_chips = (1.5 * BIG_BET, 4.5 * BIG_BET, 8 * BIG_BET)  # middle of each pot bucket
    genes = np.empty((N_GENES, 2), dtype=np.int8)
    for g in range(N_GENES):
        street, opp, _, call, pot = _decode(g)
        to_call = call * bet_size(street)
        odds = to_call / (pot_chips[pot] + to_call)
        lo = decision_value(odds)
        hi = decision_value(min(1.0, 1.5 / (opp + 1)))
        genes[g] = sorted((lo, hi))
    return genes


def baseline(name: str, rng: np.random.Generator | None = None) -> np.ndarray:
    """One baseline chromosome (540, 2) int8 by name."""
    if name == "calling_station":
        return calling_station()
    if name == "maniac":
        return maniac()
    if name == "random":
        return random_player(rng if rng is not None else np.random.default_rng(0))
    if name == "tight_aggressive":
        return tight_aggressive()
    raise ValueError(f"unknown baseline {name!r}; choose from {', '.join(BASELINES[:-1])}")


def baseline_table(name: str, seats: int, seed: int = 0) -> np.ndarray:
    """``seats`` opponents of one kind (or the mixed blend), shape (seats, 540, 2)."""
    if name not in BASELINES:
        raise ValueError(f"unknown baseline table {name!r}; choose from {', '.join(BASELINES)}")
    rng = np.random.default_rng(seed)
    kinds = [_MIX[i % len(_MIX)] for i in range(seats)] if name == "mixed" else [name] * seats
    return np.stack([baseline(kind, rng) for kind in kinds])
