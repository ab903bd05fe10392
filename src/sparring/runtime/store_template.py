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
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path

from sparring.runtime.datasets import read_verified, write_with_digest


def cache_dir() -> Path:
    """``$SPARRING_CACHE_DIR`` or ``~/.cache/sparring`` (shared with the evaluator's tables)."""
    root = os.environ.get("SPARRING_CACHE_DIR") or Path.home() / ".cache" / "sparring"
    return Path(root)


def template_path(version: str, root: Path | None = None) -> Path:
    """Where MLflow ``version``'s template is kept."""
    return (root or cache_dir()) / f"mlflow-{version}.db"


def make_store(db: Path, migrate: Callable[[str], None], version: str) -> bool:
    """Make the new store ``db`` (a path no store is at yet): a copy of ``version``'s verified
    template on which ``migrate(uri)`` (MLflow's first use) runs, else ``migrate`` alone, after
    which the template is kept. Returns whether the template was used."""
    uri = f"sqlite:///{db}"
    template = template_path(version)
    data = read_verified(template)
    if data is not None:
        db.write_bytes(data)
        try:
            migrate(uri)
            return True
        except Exception:  # an MLflow that refuses it: made the slow way, and kept anew
            db.unlink(missing_ok=True)
    migrate(uri)
    keep(db, template)
    return False


def keep(db: Path, template: Path) -> None:
    """Save a copy of the new, still empty store ``db`` as ``template`` (atomically, its
    digest beside it), without its Default experiment. Best effort: a failure is ignored."""
    with contextlib.suppress(OSError, sqlite3.Error):
        template.parent.mkdir(parents=True, exist_ok=True)
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
