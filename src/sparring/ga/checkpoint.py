"""Checkpoints as data: one ``.npz`` per generation (no pickle), written atomically.

``gen-00005.npz`` holds the state after 5 generations: the population to evaluate next, the
trainer set, the last used masks, the champion so far, the random generator's state and the
history, the last three as JSON text. ``latest`` finds the newest readable one; a half-written
file never has the final name, so it is never found.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import numpy as np

from sparring.ga.evolution import EvolutionState

VERSION = 1


def path_for(directory: str | Path, generation: int) -> Path:
    return Path(directory) / f"gen-{generation:05d}.npz"


def save(state: EvolutionState, directory: str | Path) -> Path:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    target = path_for(directory, state.generation)
    tmp = directory / f".{target.name}.{uuid.uuid4().hex[:8]}.tmp.npz"
    meta = {
        "version": VERSION,
        "generation": state.generation,
        "rng_state": state.rng_state,
        "champion_fitness": state.champion_fitness,
        "history": state.history,
        "changes": state.changes,
    }
    try:
        np.savez(
            tmp,
            population=state.population,
            trainers=state.trainers,
            champion=state.champion,
            used=state.used,
            meta=np.array(json.dumps(meta)),
        )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def load(path: str | Path) -> EvolutionState:
    with np.load(path, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
        if meta.get("version") != VERSION:
            raise ValueError(
                f"{path}: checkpoint version {meta.get('version')}, expected {VERSION}"
            )
        return EvolutionState(
            generation=int(meta["generation"]),
            population=z["population"],
            trainers=z["trainers"],
            rng_state=meta["rng_state"],
            champion=z["champion"],
            champion_fitness=float(meta["champion_fitness"]),
            used=z["used"],
            history=meta["history"],
            changes=meta["changes"],
        )


def latest(directory: str | Path) -> EvolutionState | None:
    """The newest readable checkpoint in ``directory``, or None."""
    for path in sorted(Path(directory).glob("gen-*.npz"), reverse=True):
        try:
            return load(path)
        except (OSError, ValueError, KeyError):
            continue  # damaged: fall back to the one before
    return None
