"""A new SQLite MLflow store is a copy of a migrated empty one, not migrated anew each time.

MLflow makes a new store by running its whole chain of schema migrations, about a second of CPU
on the project's machine class, and every new ``sqlite:///`` path paid it: the first run in a
fresh directory, and the test suite once for each of its tests' stores. Now the first store
that an MLflow version makes is kept as that version's template, without its one row (the
Default experiment, whose artifact location names the directory it was made from):
``mlflow-<version>.db`` with its digest beside it, under ``$SPARRING_CACHE_DIR`` or
``~/.cache/sparring``. A later new store starts as a copy of it, on which MLflow only checks the
schema and adds its own Default experiment.

A template that does not match its digest (a flipped bit, cut short, another version's put in
its place) is not used: the store is migrated as before and the template made again. So is one
that MLflow refuses. A cache that cannot be written (a read-only home) only costs the time.
"""

from __future__ import annotations

import contextlib
import fcntl
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path

from sparring.runtime import caches
from sparring.runtime.storage.datasets import read_verified, write_with_digest
from sparring.runtime.storage.location import FULL


def template_path(version: str, root: Path | None = None) -> Path:
    """Where MLflow ``version``'s template is kept."""
    return (root or caches.cache_home()) / f"mlflow-{version}.db"


def make_store(db: Path, migrate: Callable[[str], None], version: str) -> bool:
    """Make the new store ``db`` (a path no store is at yet): a copy of ``version``'s verified
    template on which ``migrate(uri)`` (MLflow's first use) runs, else ``migrate`` alone, after
    which the template is kept. Returns whether the template was used."""
    uri = f"sqlite:///{db}"
    template = template_path(version)
    try:
        data = read_verified(template)
    except OSError:  # a cache that cannot be read (permissions, I/O): made the slow way
        data = None
    if data is not None:
        try:
            db.write_bytes(data)
        except OSError as exc:
            if exc.errno in FULL:  # said as MLflow's own migration would have met it
                raise sqlite3.OperationalError("database or disk is full") from exc
            raise
        try:
            migrate(uri)
            return True
        except Exception:  # an MLflow that refuses it: made the slow way, and kept anew
            db.unlink(missing_ok=True)
    migrate(uri)
    keep(db, template, replace=data is not None)
    return False


def keep(db: Path, template: Path, replace: bool = False) -> None:
    """Save a copy of the new, still empty store ``db`` as ``template`` (atomically, its
    digest beside it), without its Default experiment. One process at a time (two migrations
    differ in bytes: interleaved, one's digest would sit beside the other's file), and not
    over a good one another process kept meanwhile unless told to ``replace`` it (MLflow
    refused it). Best effort: a failure is ignored."""
    with contextlib.suppress(OSError, sqlite3.Error):
        template.parent.mkdir(parents=True, exist_ok=True)
        with open(template.with_name(template.name + ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if replace or read_verified(template) is None:
                _write_template(db, template)


def _write_template(db: Path, template: Path) -> None:
    """``db`` emptied of its Default experiment, compacted, written as ``template``."""
    with tempfile.TemporaryDirectory(dir=template.parent) as work:
        emptied = Path(work) / "store.db"
        shutil.copyfile(db, emptied)
        with contextlib.closing(sqlite3.connect(emptied)) as con:
            with con:  # one transaction
                if con.execute("select count(*) from runs").fetchone()[0]:
                    return  # not the empty store it should be: keep nothing
                con.execute("delete from experiment_tags where experiment_id = 0")
                con.execute("delete from experiments where experiment_id = 0")
            con.execute("vacuum")  # the deleted row's directory name goes with its page
        write_with_digest(template, emptied.read_bytes())
