"""Checks that run before any work: can the MLflow store be opened at all?

A pipeline that would fail at its first MLflow call after minutes of Ray work fails here instead,
in one line: a sqlite file whose directory is missing, a file that is not a database, a
directory given as the database, an http server that does not answer.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

from sparring.runtime.errors import UsageError

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


def _check_http(uri: str, timeout_s: float) -> None:
    url = uri.rstrip("/") + "/health"
    try:
        with urllib.request.urlopen(url, timeout=timeout_s):
            return
    except urllib.error.HTTPError:
        return  # something answered: MLflow will say more if it is not an MLflow server
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise TrackingError(f"tracking.uri={uri}: no MLflow server answers ({reason})") from None
