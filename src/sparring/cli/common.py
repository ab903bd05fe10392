"""What every ``sparring`` subcommand shares: the one-line error, argument types that check
their values, and the store and tracking checks.

Argument types raise ``argparse.ArgumentTypeError``; argparse turns that into
``sparring <command>: error: argument --x: ...`` on one line (``Parser.error``), exit 2.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from sparring.launch.preflight import is_sqlite_file
from sparring.runtime.errors import EXIT_USAGE, UsageError

__all__ = ["EXIT_USAGE", "Parser", "UsageError"]


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (no usage block), exit status 2."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message} (see --help)", file=sys.stderr)
        sys.exit(EXIT_USAGE)


def group(top: Any, groups: dict[str, Any], name: str, help_text: str) -> Any:
    """The subcommands of ``sparring <name> TOOL``: made by the first domain that adds a tool
    to it, found by the others."""
    if name not in groups:
        parser = top.add_parser(name, help=help_text, description=help_text)
        groups[name] = parser.add_subparsers(dest=f"{name}_command", metavar="TOOL")
        groups[name].required = True
    return groups[name]


def _ranged(
    convert: Callable[[str], Any], allowed: str, ok: Callable[[Any], bool], name: str
) -> Callable[[str], Any]:
    """An argparse type: ``convert(text)`` when it works and ``ok`` holds, else one line naming
    the value and ``allowed``."""

    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not allowed: expected {allowed}"
            ) from None
        if not ok(value):
            raise argparse.ArgumentTypeError(f"{text} is not allowed: expected {allowed}")
        return value

    parse.__name__ = name  # argparse names the type in its messages
    return parse


def integer(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer in [low, high]."""
    allowed = f"an integer >= {low}" if high is None else f"an integer in {low}..{high}"
    return _ranged(int, allowed, lambda v: v >= low and (high is None or v <= high), "integer")


seed = integer(0)
seed.__doc__ = "A random seed: an integer >= 0."


def number(low: float, high: float, *, low_open: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number in [low, high] (or (low, high])."""
    allowed = f"a number in {'(' if low_open else '['}{low:g}, {high:g}]"

    def ok(value: float) -> bool:
        above = value > low if low_open else value >= low
        return math.isfinite(value) and above and value <= high

    return _ranged(float, allowed, ok, "number")


probability = number(0.0, 1.0)


def existing_dir(text: str) -> Path:
    """An argparse type: a directory that exists."""
    path = Path(text)
    if not path.exists():
        raise argparse.ArgumentTypeError(f"{text}: no such directory")
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: a file, expected a directory")
    return path


def output_file(text: str) -> Path:
    """An argparse type: a file path we can create or replace (its directory may be missing)."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: a directory, expected a file path")
    ancestor = path.absolute().parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: {ancestor} is a file, not a directory")
    try:  # a real attempt: permission bits say nothing to root or on a read-only mount
        with tempfile.TemporaryFile(dir=ancestor):
            pass
    except OSError:
        raise argparse.ArgumentTypeError(f"{text}: {ancestor} is not writable") from None
    return path


def store_file(text: str) -> Path:
    """An argparse type: a player-model store path (an SQLite file, or one to create)."""
    path = output_file(text)
    if path.exists() and not is_sqlite_file(path):
        raise argparse.ArgumentTypeError(f"{text}: not an SQLite database")
    return path


def tracking_uri(text: str) -> str:
    """An argparse type: an MLflow tracking URI that can be opened."""
    from sparring.launch.preflight import check_tracking

    try:
        check_tracking(text)
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc).replace("tracking.uri=", "", 1)) from None
    return text


def readable_store(uri: str, experiment: str | None = None, metrics: tuple[str, ...] = ()) -> None:
    """Before a command reads ``--tracking-uri``: it can be opened and, on a sqlite store, the
    file exists (reading must not create an empty one) and holds ``experiment`` and
    ``metrics``. Each refusal is one ``UsageError`` naming the flag."""
    from sparring.launch.preflight import check_readable_store, check_tracking

    try:
        check_tracking(uri)
        check_readable_store(uri, experiment, list(metrics))
    except UsageError as exc:
        raise UsageError(str(exc).replace("tracking.uri=", "--tracking-uri=", 1)) from None


def name(text: str) -> str:
    """An argparse type: a name that becomes a path, a filter value or a tag (the one rule of
    ``runtime.checks.name``)."""
    import re

    from sparring.runtime.checks import NAME_ALLOWED, NAME_PATTERN

    if not re.fullmatch(NAME_PATTERN, text) or ".." in text:
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed: expected {NAME_ALLOWED}")
    return text


def open_player_store(path: Path):
    """The player-model store at ``path``; a newer schema or a damaged file is a UsageError."""
    import sqlite3

    from sparring.modeling.store import open_store

    try:
        return open_store(path)
    except ValueError as exc:  # a schema newer than this code
        raise UsageError(f"--store {path}: {exc}") from None
    except sqlite3.DatabaseError as exc:
        raise UsageError(f"--store {path}: not a usable SQLite database ({exc})") from None
