"""Checkpoints as data: one ``.npz`` per generation (no pickle), written atomically, checksummed.

``gen-00005.npz`` holds the state after 5 generations: the population to evaluate next, the
trainer set, the last used masks, the champion so far, the random generator's state and the
history, the last three as JSON text, plus a SHA-256 of all of it. A half-written file never has
the final name, so it is never found; a file damaged later (truncated, a flipped bit) fails its
checksum or its zip structure, and ``latest`` reports it in one line and falls back to the
newest intact one.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from sparring.ga.evolution import EvolutionState

VERSION = 2  # 2: the hall of fame
ARRAYS = ("population", "trainers", "champion", "used", "hall")


class DamagedCheckpoint(ValueError):
    """A checkpoint file that cannot be read back as it was written."""


def _digest(arrays: dict[str, np.ndarray], meta_text: str) -> str:
    h = hashlib.sha256()
    for name in ARRAYS:
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}:{a.dtype.str}:{a.shape}".encode())
        h.update(a.tobytes())
    h.update(meta_text.encode())
    return h.hexdigest()


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
    arrays = {
        "population": state.population,
        "trainers": state.trainers,
        "champion": state.champion,
        "used": state.used,
        "hall": state.hall,
    }
    meta_text = json.dumps(meta)
    try:
        members = {
            **arrays,
            "meta": np.array(meta_text),
            "checksum": np.array(_digest(arrays, meta_text)),
        }
        np.savez(tmp, **members)  # type: ignore[arg-type]  # numpy's stub: allow_pickle
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def load(path: str | Path) -> EvolutionState:
    """The state in ``path``; ``DamagedCheckpoint`` if it is not exactly what was written."""
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {name: z[name] for name in ARRAYS}
            meta_text = str(z["meta"])
            checksum = str(z["checksum"])
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
        raise DamagedCheckpoint(f"{path}: cannot be read ({type(exc).__name__}: {exc})") from exc
    if _digest(arrays, meta_text) != checksum:
        raise DamagedCheckpoint(f"{path}: checksum mismatch (the file changed after writing)")
    meta = json.loads(meta_text)
    if meta.get("version") != VERSION:
        raise DamagedCheckpoint(
            f"{path}: checkpoint version {meta.get('version')}, expected {VERSION}"
        )
    return EvolutionState(
        generation=int(meta["generation"]),
        population=arrays["population"],
        trainers=arrays["trainers"],
        rng_state=meta["rng_state"],
        champion=arrays["champion"],
        champion_fitness=float(meta["champion_fitness"]),
        used=arrays["used"],
        history=meta["history"],
        changes=meta["changes"],
        hall=arrays["hall"],
    )


def latest(
    directory: str | Path, report: Callable[[str], object] | None = None
) -> EvolutionState | None:
    """The newest intact checkpoint in ``directory``, or None. Each damaged newer one is
    reported through ``report`` in one line and skipped."""
    for path in sorted(Path(directory).glob("gen-*.npz"), reverse=True):
        try:
            return load(path)
        except DamagedCheckpoint as exc:
            if report is not None:
                report(f"damaged checkpoint skipped: {exc}")
    return None
