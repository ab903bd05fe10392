"""What every pipeline prints at the end: a small table and where its outputs are."""

from __future__ import annotations

import io
import os
import re
import shutil
import sys
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from sparring.runtime.redact import redact_url, redact_value
from sparring.runtime.storage import Location

DEFAULT_WIDTH = 140  # piped output (make run, CI, log files) without COLUMNS
_GAP = 2  # characters between two columns of a fitted table


def terminal_width() -> int:
    """The width to print at: ``COLUMNS`` if set to a number, else the terminal's width, else
    (piped output) ``DEFAULT_WIDTH``."""
    text = os.environ.get("COLUMNS", "").strip()
    if text.isdigit() and int(text) > 0:
        return int(text)
    if sys.stdout.isatty():
        return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns
    return DEFAULT_WIDTH


console = Console(width=terminal_width())


def fit_console() -> int:
    """Set the shared console to the width ``terminal_width`` gives now (``COLUMNS`` may have
    changed since import, a terminal may have been resized); returns it."""
    console.width = terminal_width()
    return console.width


def short_number(value: float | None) -> str:
    """A metric as a person reads it: 4 significant digits (``0.3497``, ``12.35k``, ``4.5M``
    from 10 000 up), ``-`` for no value."""
    if value is None or value != value:  # None or NaN
        return "-"
    for scale, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e4, "k")):
        if abs(value) >= scale:
            divided = value / (1e3 if suffix == "k" else scale)
            return f"{divided:.4g}{suffix}"
    return f"{value:.4g}"


@dataclass(frozen=True)
class Column:
    """A column of ``print_fitted``: ``right`` aligns numbers; a cell longer than ``limit`` is
    cut with "…"; ``shrink`` is the width it may be cut down to when the table is too wide (None:
    never cut); ``drop`` lets it be left out when cutting is not enough (the last first)."""

    header: str
    right: bool = False
    limit: int | None = None
    shrink: int | None = None
    drop: bool = False


def fit_widths(columns: Sequence[Column], rows: Sequence[Sequence[str]], width: int) -> list[int]:
    """Each column's width (0 = left out) so that one line per row fits in ``width``: every
    column at its widest cell or header (at most ``limit``), then the ``shrink`` columns cut
    down, widest first, then ``drop`` columns left out from the right; a table that still does
    not fit keeps what is left (ids and numbers are never cut)."""
    widths = []
    for i, col in enumerate(columns):
        natural = max([len(col.header), *(len(str(r[i])) for r in rows)])
        widths.append(min(natural, col.limit) if col.limit else natural)

    def excess() -> int:
        kept = [w for w in widths if w]
        return sum(kept) + _GAP * (len(kept) - 1) - width

    while excess() > 0:
        cuttable = [
            i for i, c in enumerate(columns) if c.shrink is not None and widths[i] > c.shrink
        ]
        droppable = [i for i, c in enumerate(columns) if c.drop and widths[i]]
        if cuttable:
            i = max(cuttable, key=lambda j: widths[j])
            widths[i] = max(columns[i].shrink or 1, widths[i] - excess())
        elif droppable:
            widths[droppable[-1]] = 0
        else:
            break
    return widths


def print_fitted(
    columns: Sequence[Column],
    rows: Sequence[Sequence[Any]],
    sections: Sequence[int] = (),
    width: int | None = None,
) -> tuple[str, list[str]]:
    """Print a table of one line per row that fits the terminal (``fit_widths``; a cut cell ends
    in "…"), a rule after each row index in ``sections``; return its plain text and the headers
    of the columns left out."""
    width = width or fit_console()
    cells = [[str(v) for v in row] for row in rows]
    widths = fit_widths(columns, cells, width)
    table = Table(box=box.HORIZONTALS, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0))
    kept = [i for i, w in enumerate(widths) if w]
    for i in kept:
        table.add_column(
            columns[i].header,
            justify="right" if columns[i].right else "left",
            width=widths[i],
            no_wrap=True,
            overflow="ellipsis",
        )
    for n, row in enumerate(cells):
        table.add_row(*[row[i] for i in kept], end_section=n in sections)
    console.print(table, width=width, crop=False)
    plain = Console(width=width, record=True, file=io.StringIO())
    plain.print(table, crop=False)
    dropped = [c.header for c, w in zip(columns, widths, strict=True) if not w]
    return plain.export_text(), dropped


_NUMBER = re.compile(r"[-+]?[\d,.]*\d[\d,.]*(e[-+]?\d+)?[%kMGT]?")


def _rich_table(title: str, columns: Sequence[str], cells: Sequence[Sequence[str]]) -> Table:
    """A boxed table, one line per row (never wrapped): numbers right-aligned, text left."""
    table = Table(title=title)
    for i, col in enumerate(columns):
        numeric = all(_NUMBER.fullmatch(row[i]) or not row[i] for row in cells)
        table.add_column(col, justify="right" if numeric else "left", no_wrap=True)
    for row in cells:
        table.add_row(*row)
    return table


def _render_plain(renderable: Any, width: int) -> str:
    plain = Console(width=width, record=True, file=io.StringIO())
    plain.print(renderable, crop=False)
    return plain.export_text()


def table_text(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """The table as plain text at its natural width, one line per row."""
    cells = [[str(v) for v in row] for row in rows]
    return _render_plain(_rich_table(title, columns, cells), 10_000)


def record_text(
    title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]], width: int
) -> str:
    """The table as one block per row, a ``header  value`` line per cell, a long value wrapped
    at spaces under itself (the form for a terminal too narrow for one line per row: nothing
    is cut and no header is broken)."""
    label = max((len(c) for c in columns), default=0)
    indent = " " * (label + 4)
    lines = [title]
    for n, row in enumerate(rows, 1):
        lines.append(f"── {n} " + "─" * max(0, label - 2))
        for col, value in zip(columns, row, strict=True):
            first = f"  {col:<{label}}  "
            lines += textwrap.wrap(
                str(value),
                max(width, len(indent) + 20),
                initial_indent=first,
                subsequent_indent=indent,
                break_long_words=False,
                break_on_hyphens=False,
            ) or [first.rstrip()]
    return "\n".join(lines) + "\n"


def print_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Print a table at the terminal's width (``terminal_width``): one line per row when it
    fits, else one block per row (``record_text``); cells are never cut or wrapped. Returns
    the one-line-per-row text at its natural width (for an MLflow artifact, read in full)."""
    width = fit_console()
    text = table_text(title, columns, rows)
    if max(len(line) for line in text.splitlines()) <= width:
        console.print(_rich_table(title, columns, [[str(v) for v in r] for r in rows]))
    else:
        console.print(  # wrapped by record_text alone: a word wider than the line stays whole
            record_text(title, columns, rows, width),
            end="",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    return text


UI_RUN_PAGE = "{ui}/#/experiments/{experiment}/runs/{run}?workflowType=machine_learning"
"""A run's page in the MLflow UI, in its classic (model training) view."""
LOCAL_UI = "http://127.0.0.1:5000"  # where ``mlflow ui`` serves a sqlite or file store


def run_link(tracking_uri: str, experiment_id: str, run_id: str) -> str:
    """The run's page in the MLflow UI: on the tracking server itself, or (a sqlite or file
    store) where ``mlflow ui`` serves it by default."""
    server = tracking_uri.startswith(("http://", "https://"))
    ui = tracking_uri.rstrip("/") if server else LOCAL_UI
    return UI_RUN_PAGE.format(ui=ui, experiment=experiment_id, run=run_id)


def print_locations(
    outputs: dict[str, Any],
    tracking_uri: str,
    run_id: str,
    job_page: str | None = None,
    experiment_id: str | None = None,
) -> None:
    """Print the output paths, the MLflow run (with ``experiment_id``, its page in the UI), how
    to open the MLflow UI and, for a run inside a Ray job, the dashboard's page of the job."""
    for name, path in outputs.items():
        shown = path.display() if isinstance(path, Location) else path
        console.print(f"[bold]{name}:[/bold] {redact_value(shown)}")
    tracking_uri = redact_url(tracking_uri)  # a password or token is never printed
    console.print(f"[bold]MLflow run:[/bold] {run_id} in {tracking_uri}")
    if tracking_uri.startswith("sqlite"):
        console.print(f"  open the UI with: mlflow ui --backend-store-uri {tracking_uri}")
    if experiment_id is not None:
        console.print(f"  {run_link(tracking_uri, experiment_id, run_id)}", soft_wrap=True)
    if job_page:
        console.print(f"[bold]Ray job:[/bold] {job_page}", soft_wrap=True)
