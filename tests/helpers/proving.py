"""What "a file that proves itself" means, in one place (#27): for every kind of file a later
run reads back, the real writer makes two of them, each fault below is done to one, and the
real reader must then refuse it (one line) or compute it again. It must never use it.

A file proves itself by its digest (a flipped bit), its completeness (cut short) and its
identity (an intact copy of another file of the same kind, with its digest, put in its place).
``KINDS`` names each kind with its writer and reader; ``tests/runtime/test_files_prove_
themselves.py`` runs every fault on every kind and checks that every writer in ``src/`` is one
of these kinds or is named, with its reason, as a file no run reads back.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

FAULTS = ("flip", "cut", "copy")
USED = "used"  # what a reader that took the damaged file returns: the defect
REFUSED = "refused"
RECOMPUTED = "recomputed"


@dataclass(frozen=True)
class Kind:
    """One kind of file: ``make(directory, i)`` writes the ``i``-th file with the real writer
    and returns its path (and, for the reader, what it holds); ``read(path, made)`` reads it
    back with the real reader: ``REFUSED`` (it raised one line), ``RECOMPUTED`` (it said the
    file is to be made again), or the value it read. ``faults``: those that apply."""

    make: Callable[[Path, int], tuple[Path, Any]]
    read: Callable[[Path, Any], Any]
    faults: tuple[str, ...] = FAULTS
    expected: Callable[[Any], Any] = lambda made: made  # what reading the intact file gives


def is_outcome(value: Any, *outcomes: str) -> bool:
    """Whether a reader's ``value`` is one of ``outcomes`` (not a value it read)."""
    return isinstance(value, str) and value in outcomes


def flip(path: Path) -> None:
    """One bit flipped in the middle of the file."""
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x10
    path.write_bytes(bytes(data))


def cut(path: Path) -> None:
    """The file cut to its first half."""
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def copy_over(source: Path, target: Path) -> None:
    """``source`` (and its ``.sha256``, if it has one) copied over ``target``."""
    shutil.copyfile(source, target)
    digest = source.with_name(source.name + ".sha256")
    if digest.exists():
        shutil.copyfile(digest, target.with_name(target.name + ".sha256"))


def refused_as(*errors: type[BaseException]) -> Callable[[Callable[[], Any]], Any]:
    """Call a reader: ``REFUSED`` when it raises one of ``errors`` in one line."""

    def call(read: Callable[[], Any]) -> Any:
        try:
            return read()
        except errors as exc:
            assert "\n" not in str(exc), str(exc)
            return REFUSED

    return call


# --- the kinds --------------------------------------------------------------------------


def _dataset() -> Kind:
    """A dataset file where a run wrote it (a deal shard): found again by the run that reuses
    it (``is_reusable``, with the identity its place gives), then read (``read_table``)."""
    from sparring.runtime.storage.datasets import (
        DatasetError,
        DatasetSpec,
        is_reusable,
        read_table,
        write_table,
    )

    spec = DatasetSpec("proof", 1, pa.schema([("x", pa.int64())]))

    def make(directory: Path, i: int) -> tuple[Path, Any]:
        table = pa.table({"x": np.arange(1000, dtype=np.int64) * (i + 2)})
        path = directory / f"part-{i:05d}.parquet"
        write_table(table, path, spec, config_hash="h", seed=i, extra={"shard": i})
        return path, (i, table)

    def read(path: Path, made: Any) -> Any:
        if not is_reusable(path, spec, "h", report=None, identity={"shard": made[0]}):
            return RECOMPUTED
        return refused_as(DatasetError)(lambda: read_table(path, spec))

    return Kind(make, read, expected=lambda made: made[1])


def _checkpoint() -> Kind:
    from sparring.ga import checkpoint
    from sparring.ga.evolution import GAParams, initial_state

    state = initial_state(GAParams(population=6, seed=1))

    def make(directory: Path, i: int) -> tuple[Path, Any]:
        return checkpoint.save(replace(state, generation=i), directory).local_path(), i

    def read(path: Path, made: Any) -> Any:
        read_back = refused_as(checkpoint.DamagedCheckpoint)(lambda: checkpoint.load(path))
        return read_back if read_back == REFUSED else read_back.generation

    return Kind(make, read)


def _league_pair() -> Kind:
    from sparring.champions.pairs import read_pair, write_pair

    def make(directory: Path, i: int) -> tuple[Path, Any]:
        pair = np.arange(40, dtype=np.float64).reshape(20, 2) * (i + 1)
        path = directory / f"deals-a{i}-b{i}.npy"
        write_pair(path, False, pair)
        return path, pair

    def read(path: Path, made: Any) -> Any:
        found = read_pair(path, False, 20)
        return RECOMPUTED if found is None else found

    return Kind(make, read)


def _best_file() -> Kind:
    from sparring.config.best_files import check_best_files
    from sparring.runtime.checkout import conf_dir
    from sparring.runtime.errors import UsageError
    from sparring.tuning.summary import TrialRecord, write_best

    def make(directory: Path, i: int) -> tuple[Path, Any]:
        record = TrialRecord(i, f"t{i}", {"ga.p_mutation": 0.1 * (i + 1)}, 1.0, "finished")
        path = write_best(directory / "best" / f"t{i}.yaml", {"ga.generations": 2}, record,
                          f"t{i}", "champion_bb100")  # fmt: skip
        return path, path.read_bytes()

    def read(path: Path, made: Any) -> Any:
        given = [f"+best={path.stem}", f"hydra.searchpath=[file://{path.parent.parent}]"]
        checked = refused_as(UsageError)(lambda: check_best_files(conf_dir(), given))
        return checked if checked == REFUSED else path.read_bytes()

    return Kind(make, read)


def _search_state() -> Kind:
    from sparring.runtime.errors import UsageError
    from sparring.tuning import state

    def make(directory: Path, i: int) -> tuple[Path, Any]:
        kept = {key: f"{key}-{i}" for key in state.KEPT}
        saved = state.SearchState(f"parent-{i}", f"s{i}", kept)
        return state.save(directory / f"s{i}", saved), saved

    def read(path: Path, made: Any) -> Any:
        return refused_as(UsageError)(lambda: state.load(path.parent))

    return Kind(make, read)


def _arena_block() -> Kind:
    from sparring.arena.contest import Block
    from sparring.pipelines.arena import _block_file, _load, _save
    from sparring.runtime.storage.location import locate

    def block(i: int) -> Block:
        return Block("flagbots", "random", "first", 10 * i, 10 * i + 10)

    # the store's key (runtime.storage.keys): one per store, here one for all copies
    key = b"k" * 32

    def make(directory: Path, i: int) -> tuple[Path, Any]:
        result = {"block": block(i).__dict__, "units": [{"score": 0.5 + i / 10}]}
        _save(locate(directory), result, key)
        return _block_file(locate(directory), block(i)).local_path(), result

    def read(path: Path, made: Any) -> Any:
        found = _load(locate(path.parent), Block(**made["block"]), key)
        return RECOMPUTED if found is None else found

    return Kind(make, read)


def _evaluator_tables() -> Kind:
    """The poker evaluator's table cache (one file per machine: no copy to make)."""
    import os

    from sparring.poker import tables

    def make(directory: Path, i: int) -> tuple[Path, Any]:
        source = tables.cache_path()
        tables.load_tables()  # built and cached once, if not already
        target = directory / f"{i}" / source.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        return target, tables.load_tables().values7.copy()

    def read(path: Path, made: Any) -> Any:
        before = path.read_bytes()
        old = os.environ.get("SPARRING_CACHE_DIR")
        os.environ["SPARRING_CACHE_DIR"] = str(path.parent)
        try:
            tables.load_tables.cache_clear()
            values = tables.load_tables().values7
        finally:
            tables.load_tables.cache_clear()
            if old is None:
                os.environ.pop("SPARRING_CACHE_DIR", None)
            else:
                os.environ["SPARRING_CACHE_DIR"] = old
        if path.read_bytes() != before:  # built again and saved anew
            return RECOMPUTED if np.array_equal(values, made) else USED
        return values

    return Kind(make, read, faults=("flip", "cut"))


def _champion() -> Kind:
    """A champion's chromosome, an MLflow artifact of its run (its place is that run's own
    artifact directory, written once: a copy from another run is not a fault of the file)."""
    from mlflow.tracking import MlflowClient

    from sparring.champions.registry import load_champion, log_champion
    from sparring.runtime.storage.datasets import DatasetError

    def make(directory: Path, i: int) -> tuple[Path, Any]:
        client = MlflowClient(f"sqlite:///{directory / 'mlflow.db'}")
        name = f"proof-{i}"
        exp = client.get_experiment_by_name(name) or client.get_experiment(
            client.create_experiment(name, artifact_location=(directory / f"art{i}").as_uri())
        )
        run = client.create_run(exp.experiment_id).info.run_id
        genes = np.full((540, 2), i + 1, dtype=np.int8)
        log_champion(client, run, genes, {"fitness": float(i)})
        [path] = (directory / f"art{i}").rglob("champion/chromosome.npy")
        return path, (client, run, genes)

    def read(path: Path, made: Any) -> Any:
        client, run, _ = made
        loaded = refused_as(DatasetError)(lambda: load_champion(client, f"runs:/{run}/champion"))
        return loaded if loaded == REFUSED else loaded[0]

    return Kind(make, read, faults=("flip", "cut"), expected=lambda made: made[2])


def _store_template() -> Kind:
    """MLflow's migrated empty store, kept per MLflow version (the ``i``-th file: "version"
    ``v<i>``, so another's, put in its place, is another version's template)."""
    from sparring.runtime.tracking import store_template
    from sparring.runtime.tracking.runs import _first_use

    def made_in(directory: Path, version: str) -> str:
        """A new store made with ``directory`` as the cache: "copied" when MLflow's first use
        ran on a copy of the template (whether or not MLflow then took it), else "migrated"."""
        old = os.environ.get("SPARRING_CACHE_DIR")
        os.environ["SPARRING_CACHE_DIR"] = str(directory)
        db = directory / f"store-{version}-{len(list(directory.iterdir()))}.db"
        copied = []

        def first_use(uri: str) -> None:
            copied.append(db.exists() and db.stat().st_size > 0)
            _first_use(uri)

        try:
            store_template.make_store(db, first_use, version)
        finally:
            if old is None:
                os.environ.pop("SPARRING_CACHE_DIR", None)
            else:
                os.environ["SPARRING_CACHE_DIR"] = old
        return "copied" if copied[0] else "migrated"

    def make(directory: Path, i: int) -> tuple[Path, Any]:
        made_in(directory, f"v{i}")
        return store_template.template_path(f"v{i}", directory), f"v{i}"

    def read(path: Path, made: Any) -> Any:
        # a damaged template copied into a store is used, even when MLflow then refuses it
        return made if made_in(path.parent, made) == "copied" else RECOMPUTED

    return Kind(make, read)


KINDS: dict[str, Callable[[], Kind]] = {
    "champion": _champion,
    "dataset": _dataset,
    "checkpoint": _checkpoint,
    "league_pair": _league_pair,
    "best_file": _best_file,
    "search_state": _search_state,
    "arena_block": _arena_block,
    "evaluator_tables": _evaluator_tables,
    "store_template": _store_template,
}
