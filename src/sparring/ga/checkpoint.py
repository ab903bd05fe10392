"""Checkpoints as data: one ``.npz`` per generation (no pickle), written atomically, checksummed.

``gen-00005.npz`` holds the state after 5 generations: the population to evaluate next, the trainer
set, the last used masks, the champion so far, the random generator's state and the history, the
last three as JSON text, plus a SHA-256 of all of it, and the hash of the config that made it
(``made_by``: the evolution's run hash). A resume names the config it continues; a checkpoint
of another config (a population of another size, another table) is refused in one line, never
continued. The directory is a local path or a storage
URI (``s3://bucket/checkpoints``); a file is written atomically (a temporary name renamed, or one
upload), so a half-written file never has the final name and is never found; a file damaged later
(truncated, a flipped bit) fails its checksum or its zip structure, and ``latest`` reports it in
one line and falls back to the newest intact one.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
import zlib
from collections.abc import Callable

import numpy as np

from sparring.ga.evolution import EvolutionState
from sparring.runtime.errors import UsageError
from sparring.runtime.signals import deferred
from sparring.runtime.storage.location import Location, locate

Where = str | os.PathLike[str] | Location

VERSION = 3  # 2: the hall of fame; 3: made_by
ARRAYS = ("population", "trainers", "champion", "used", "hall")


class DamagedCheckpoint(ValueError):
    """A checkpoint file that cannot be read back as it was written."""


class ForeignCheckpoint(UsageError):
    """An intact checkpoint that another config made: resuming it would mix two runs."""


def _digest(arrays: dict[str, np.ndarray], meta_text: str) -> str:
    h = hashlib.sha256()
    for name in ARRAYS:
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}:{a.dtype.str}:{a.shape}".encode())
        h.update(a.tobytes())
    h.update(meta_text.encode())
    return h.hexdigest()


def path_for(directory: Where, generation: int) -> Location:
    return locate(directory) / f"gen-{generation:05d}.npz"


def save(state: EvolutionState, directory: Where, made_by: str = "") -> Location:
    """Write the state after ``state.generation`` generations; ``made_by`` names its config."""
    target = path_for(directory, state.generation)
    meta = {
        "version": VERSION,
        "made_by": made_by,
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
    members = {
        **arrays,
        "meta": np.array(meta_text),
        "checksum": np.array(_digest(arrays, meta_text)),
    }
    buffer = io.BytesIO()
    # a SIGTERM raised inside numpy's zip writer left it open, and closing it then raised a
    # ValueError in the signal's place (exit 1 and a traceback, not 143): it waits to the end
    with deferred():
        np.savez(buffer, **members)  # type: ignore[arg-type]  # numpy's stub: allow_pickle
        target.write_bytes(buffer.getvalue())  # atomic: a temporary name renamed, or one upload
    return target


def load(path: Where, made_by: str | None = None) -> EvolutionState:
    """The state in ``path``; ``DamagedCheckpoint`` if it is not exactly what was written,
    ``ForeignCheckpoint`` if ``made_by`` is given and another config made it."""
    try:
        data = locate(path).read_bytes()
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
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
    name = locate(path).name
    if name.startswith("gen-") and name != f"gen-{int(meta['generation']):05d}.npz":
        raise DamagedCheckpoint(  # an intact copy of another generation's file
            f"{path}: holds generation {meta['generation']}, not the one its name says"
        )
    if made_by is not None and meta.get("made_by") != made_by:
        raise ForeignCheckpoint(
            f"{path}: made by config {meta.get('made_by') or '(unnamed)'}, not by this run's "
            f"{made_by}; it is not resumed: move it away, or resume with the config that made it"
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
    directory: Where, report: Callable[[str], object] | None = None, made_by: str | None = None
) -> EvolutionState | None:
    """The newest intact checkpoint in ``directory``, or None. Each damaged newer one is
    reported through ``report`` in one line and skipped; one that another config made
    (``made_by`` given) raises ``ForeignCheckpoint``."""
    for path in reversed(locate(directory).glob("gen-*.npz")):
        try:
            return load(path, made_by)
        except DamagedCheckpoint as exc:
            if report is not None:
                report(f"damaged checkpoint skipped: {exc}")
    return None
