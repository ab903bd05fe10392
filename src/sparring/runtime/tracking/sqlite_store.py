"""A new SQLite MLflow store comes into being whole or not at all; a half-made one is named.

MLflow creates and migrates a store's tables on its first use. Interrupted half way (a full
disk, a kill), that leaves a file that every later run fails on (``table webhooks already
exists``), even once space is freed. So a new store is migrated under a temporary name and
renamed into place only when complete, and a store that a failed migration left behind is
recognised, from the file alone (sqlite3, no MLflow import), and refused in one line that
says how to recover.
"""

from __future__ import annotations

import errno
import os
import re
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sparring.runtime.errors import UsageError, first_line

# What alembic's batch mode leaves when a migration of a SQLite table stops half way.
_ALEMBIC_LEFTOVER = "_alembic_tmp_"
MIGRATION_WAIT_S = 120.0  # how long a store another process has open may take to look whole
# How SQLite words a migration step that finds the work of a half-done one.
_HALF_MIGRATED = ("already exists", "no such table", "no such column", "duplicate column")


class BrokenStore(UsageError):
    """An SQLite MLflow store that a failed creation or migration left unusable."""


class OutdatedStore(UsageError):
    """An SQLite MLflow store of an older schema, which MLflow upgrades only when asked."""


def create_whole(db: Path, migrate: Callable[[str], None]) -> None:
    """Make a new store at ``db``: ``migrate(uri)`` creates the tables in a temporary file
    beside it, which then takes ``db``'s name unless a store has appeared there meanwhile. On
    any failure nothing is left under ``db`` (nor the temporary file) and the error is raised
    as it came."""
    tmp = db.with_name(f".{db.name}.{uuid.uuid4().hex[:8]}.creating")
    try:
        migrate(f"sqlite:///{tmp}")
        # link, not rename: a store another process made meanwhile (an MLflow client outside
        # Sparring's lock) is never replaced; the caller then opens that one
        if db.exists() and db.stat().st_size == 0:
            os.replace(tmp, db)  # an empty file holds nothing to keep
        else:
            _link_unless_there(tmp, db)
    finally:
        for leftover in (tmp, *(tmp.with_name(tmp.name + s) for s in ("-journal", "-wal"))):
            leftover.unlink(missing_ok=True)


def _link_unless_there(tmp: Path, db: Path) -> None:
    """``tmp`` under the name ``db``, unless a file took that name meanwhile. A hard link does
    that atomically; where the filesystem has none (SMB, some FUSE mounts), a rename after a
    look (the caller holds the store's lock, so only an outside MLflow client could race)."""
    try:
        os.link(tmp, db)
    except FileExistsError:
        pass
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.ENOSYS, errno.EOPNOTSUPP):
            raise
        if not db.exists():
            os.rename(tmp, db)


def half_made(db: Path) -> str | None:
    """Why the existing store ``db`` is a half-made one (a reason for a person), or None when
    it looks whole or is not a store this can read (MLflow then says what it is)."""
    try:
        with sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True) as con:
            tables = {row[0] for row in con.execute("select name from sqlite_master")}
            if not tables:
                return None  # an empty file: a new store is made in it
            leftovers = sorted(t for t in tables if t.startswith(_ALEMBIC_LEFTOVER))
            if leftovers:
                return f"a schema migration stopped half way (it left {leftovers[0]})"
            if "alembic_version" not in tables:
                return "its tables were created but never stamped with a schema version"
            if not con.execute("select version_num from alembic_version").fetchall():
                return "its schema version is empty"
    except sqlite3.Error:
        return None
    return None


def _held_open_by_others(db: Path) -> list[int]:
    """The other processes of this machine that have ``db`` open (read from /proc)."""
    target = str(db.resolve())
    holders = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            fds = os.listdir(f"/proc/{entry}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{entry}/fd/{fd}") == target:
                    holders.append(int(entry))
                    break
            except OSError:
                continue
    return holders


def _settled_half_made(db: Path, wait_s: float) -> str | None:
    """``half_made(db)``, but a store another process has open may be in the middle of its
    migration (an MLflow client outside Sparring migrates without our lock): what looks half
    made is looked at again until no one else holds it, for up to ``wait_s``."""
    deadline = time.monotonic() + wait_s
    while True:
        reason = half_made(db)
        if reason is None or time.monotonic() >= deadline:
            return reason
        if not _held_open_by_others(db):
            # Looked at again: the last holder may have finished its migration and let go
            # between the look above and this check (a race a loaded machine showed).
            return half_made(db)
        time.sleep(0.2)


def refuse_half_made(uri: str, db: Path, reason: str | None = None) -> None:
    """Raise ``BrokenStore`` (one line: what is wrong and how to recover) when ``db`` is half
    made (or for ``reason``, when one is given) and no other process is still making it."""
    if reason is None:
        reason = _settled_half_made(db, MIGRATION_WAIT_S)
    if reason is None:
        return
    raise BrokenStore(
        f"tracking.uri={uri}: {db} is a half-made MLflow store ({reason}); it holds "
        f"{_runs(db)}. Move it away (mv {db} {db}.broken) and run again to start a new store, "
        "or restore it from a backup"
    )


@contextmanager
def refused_if_half_migrated(uri: str, db: Path) -> Iterator[None]:
    """Around MLflow's first use of the existing store ``db``: a migration that trips over what
    an earlier one left (a table that already exists, one that is missing) is ``BrokenStore``;
    a store of an older schema is ``OutdatedStore`` (how to upgrade it); any other failure
    passes as it came."""
    try:
        yield
    except Exception as exc:
        text = str(exc)
        old = re.search(
            r"out-of-date database schema \(found version (\w+), but expected (\w+)", text
        )
        if old:
            raise OutdatedStore(
                f"tracking.uri={uri}: the store was made by an older MLflow (schema "
                f"{old.group(1)}; this MLflow reads {old.group(2)}); back it up, then run "
                f"`mlflow db upgrade {uri}`"
            ) from None
        if not any(sign in text for sign in _HALF_MIGRATED) or _held_open_by_others(db):
            raise  # (with another process in the store, two migrations may have collided)
        refuse_half_made(uri, db, f"its migration fails: {first_line(text)[:160]}")


def _runs(db: Path) -> str:
    try:
        with sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True) as con:
            n = con.execute("select count(*) from runs").fetchone()[0]
    except sqlite3.Error:
        return "no readable runs"
    return "no runs" if n == 0 else f"{n} run{'s' if n != 1 else ''}"
