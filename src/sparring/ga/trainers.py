"""The co-evolving trainer set (specs/poker.md §7).

After each generation the best individual B plays one table with the trainers. If B's winnings
are positive and greater than the best trainer's winnings at that table, the trainer with the
worst result leaves and a copy of B joins.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class TrainerChange:
    """One replacement in the trainer set, as logged."""

    generation: int
    left: int  # index (slot) of the trainer that left
    joined_from: int  # population index of the individual copied in
    challenger_winnings: float
    best_trainer_winnings: float
    worst_trainer_winnings: float


def update_trainers(
    trainers: np.ndarray,
    challenger: np.ndarray,
    challenger_winnings: float,
    trainer_winnings: np.ndarray,
    generation: int,
    challenger_index: int,
) -> tuple[np.ndarray, TrainerChange | None]:
    """Apply the replacement rule; returns the (new) trainer set and the change, if any.

    ``trainer_winnings[i]`` is trainer i's result at the challenger's table.
    """
    best = float(np.max(trainer_winnings))
    if not (challenger_winnings > 0 and challenger_winnings > best):
        return trainers, None
    worst = int(np.argmin(trainer_winnings))
    out = trainers.copy()
    out[worst] = challenger
    change = TrainerChange(
        generation,
        worst,
        challenger_index,
        float(challenger_winnings),
        best,
        float(trainer_winnings[worst]),
    )
    return out, change
