"""Checks that run before any work: can the MLflow store be opened at all? Does a store that
a command only reads hold what it names?

A pipeline that would fail at its first MLflow call after minutes of Ray work fails here instead,
in one line: a sqlite file whose directory is missing, a file that is not a database, a
directory given as the database, an http server that does not answer.
"""

from __future__ import annotations

import sqlite3
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from sparring.runtime.config import close_names
from sparring.runtime.errors import ConfigError, UsageError
from sparring.runtime.redact import redact_url
from sparring.runtime.tracking.sqlite_store import refuse_half_made

SQLITE_HEADER = b"SQLite format 3\x00"


def is_sqlite_file(path: Path) -> bool:
    """Whether an existing file is an SQLite database (an empty file may become one)."""
    with open(path, "rb") as f:
        head = f.read(len(SQLITE_HEADER))
    return not head or head == SQLITE_HEADER


class TrackingError(UsageError):
    """The tracking URI cannot be opened."""


def check_tracking(uri: str, timeout_s: float = 5.0) -> None:
    """Raise ``TrackingError`` (one line) when ``uri`` cannot be an MLflow store."""
    if uri.startswith("sqlite:///"):
        _check_sqlite(uri, Path(uri[len("sqlite:///") :]))
    elif uri.startswith(("http://", "https://")):
        _check_http(uri, timeout_s)
    elif "://" not in uri and uri.strip():
        path = Path(uri)
        if path.exists() and not path.is_dir():
            raise TrackingError(
                f"tracking.uri={uri}: a file, expected a directory for a file store"
            )
    elif uri.startswith("sqlite:"):
        raise TrackingError(f"tracking.uri={uri} is not allowed: expected sqlite:///<path>")


def _check_sqlite(uri: str, path: Path) -> None:
    if str(path) in ("", ":memory:"):
        raise TrackingError(f"tracking.uri={uri} is not allowed: expected sqlite:///<file path>")
    if path.is_dir():
        raise TrackingError(f"tracking.uri={uri}: {path} is a directory, expected a database file")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise TrackingError(f"tracking.uri={uri}: the directory {parent} does not exist")
    if path.exists() and not is_sqlite_file(path):
        raise TrackingError(f"tracking.uri={uri}: {path} is not an SQLite database")
    if path.exists():
        refuse_half_made(uri, path)
        _check_intact(uri, path)


LOCKED_WAIT_S = 5.0  # a store another process holds locked this long is said, not waited on


def _check_intact(uri: str, path: Path) -> None:
    """The store opens and is whole: not locked by another process beyond ``LOCKED_WAIT_S``,
    its schema readable, and as long as its pages say (a file cut short is damaged: MLflow
    would fail deep in a query with 80 lines). O(1): no page is scanned."""
    import sqlite3

    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=LOCKED_WAIT_S)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            pages = conn.execute("PRAGMA page_count").fetchone()[0]
            size = conn.execute("PRAGMA page_size").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc):
            raise TrackingError(
                f"tracking.uri={uri}: {path} is locked by another process (waited "
                f"{LOCKED_WAIT_S:g} s); let it finish or end it, then run the same command again"
            ) from None
        raise TrackingError(f"tracking.uri={uri}: {path} cannot be read ({exc})") from None
    except sqlite3.DatabaseError as exc:
        raise TrackingError(_damaged(uri, path, str(exc))) from None
    if path.stat().st_size < pages * size:
        raise TrackingError(_damaged(uri, path, f"cut short: {path.stat().st_size} of "
                                               f"{pages * size} bytes"))  # fmt: skip


def _damaged(uri: str, path: Path, why: str) -> str:
    return (f"tracking.uri={uri}: {path} is damaged ({why}); move it aside and put back a "
            "copy, or start a new store at another path")  # fmt: skip


def _check_http(uri: str, timeout_s: float) -> None:
    url = uri.rstrip("/") + "/health"
    try:
        with urllib.request.urlopen(url, timeout=timeout_s):
            return
    except urllib.error.HTTPError:
        return  # something answered: MLflow will say more if it is not an MLflow server
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        shown = redact_url(uri)
        raise TrackingError(f"tracking.uri={shown}: no MLflow server answers ({reason})") from None


def check_readable_store(uri: str, experiment: str | None, metrics: list[str]) -> None:
    """Before a command that only reads the record (``compare``) imports MLflow: on a sqlite
    store, the file must exist (reading must not create an empty store), ``experiment`` must be
    one of its experiments and each of ``metrics`` logged by some run of it. Read from the
    file itself with sqlite3, in milliseconds; other stores are checked by the command.

    The messages are the command's own for the same mistakes (``reporting.compare_query``)."""
    if not uri.startswith("sqlite:///"):
        return
    path = Path(uri[len("sqlite:///") :])
    if not path.exists():
        raise TrackingError(
            f"tracking.uri={uri}: no MLflow store at {path} (run a pipeline first, or give "
            "the store's path)"
        )
    if experiment is None:
        return
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            names = [
                row[0]
                for row in db.execute(
                    "select name from experiments where lifecycle_stage = 'active' "
                    "order by creation_time desc, experiment_id"  # as MLflow lists them
                )
            ]
            if experiment not in names:
                raise ConfigError(
                    "experiment",
                    experiment,
                    f"an experiment in {uri}: one of {', '.join(names) or 'none'}",
                )
            known = sorted(
                row[0]
                for row in db.execute(
                    "select distinct m.key from latest_metrics m join runs r "
                    "on m.run_uuid = r.run_uuid join experiments e "
                    "on r.experiment_id = e.experiment_id "
                    "where e.name = ? and r.lifecycle_stage = 'active'",
                    (experiment,),
                )
            )
    except sqlite3.Error:
        return  # an older or newer schema: the command's own checks say what is wrong
    for name in metrics:
        if name not in known:
            raise UsageError(
                f"no run in experiment {experiment!r} has metric {name!r}; "
                f"{close_names(name, known)}"
            )


def check_compare(config: Any) -> None:
    """``pipelines/compare.py``'s preflight: the store, experiment and metrics it names."""
    if config.sweep_id is not None or config.model is not None:
        return  # the sweep or model says which runs: compare checks them
    check_readable_store(config.tracking.uri, config.experiment, [config.metric, *config.metrics])


def check_handgen(config: Any) -> None:
    """``pipelines/handgen.py``'s preflight: a local ``preflop.table`` of its own must be a
    complete preflop_equity table (every class against 1..9 opponents). It is read here, in
    milliseconds, so that a wrong file is one line before Ray and the MLflow run start. A file
    that cannot be read (an ``OSError``) is left to the run's own line."""
    from sparring.runtime.storage.location import is_remote

    table = config.preflop.table
    if table is None or is_remote(table):
        return  # (a table on an object store is read by the run, which may not need it)
    from sparring.poker.preflop import load_table

    location = config.storage.locate(table)
    try:
        load_table(location)
    except ValueError as exc:  # not a table, or not a whole one (DatasetError is a ValueError)
        reason = str(exc).splitlines()[0].removeprefix(f"{location}: ")
        raise ConfigError(
            "preflop.table",
            table,
            f"a complete preflop_equity table, as pipelines/equity.py writes it ({reason})",
        ) from None
