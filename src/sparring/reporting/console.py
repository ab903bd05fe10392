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
from typing import Any, Literal, NamedTuple

from rich import box
from rich.console import Console
from rich.table import Table

from sparring.runtime.redact import redact_url, redact_value
from sparring.runtime.storage.location import Location

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


ABBREVIATED = 8  # characters an abbreviated header keeps, its "…" included: "crossov…"
CELL_FLOOR = 12  # characters a cut ``shrink`` cell of an abbreviating column keeps


@dataclass(frozen=True)
class Column:
    """A column of ``print_fitted``: ``right`` aligns numbers; a cell longer than ``limit`` is
    cut with "…"; ``shrink`` is the width its cells may be cut down to when the table is too
    wide (None: never cut); ``drop`` lets it be left out when cutting is not enough (the later
    a column, the sooner). ``abbreviate`` lets the header be cut to ``ABBREVIATED`` characters
    ending in "…" (for a legend to name in full); ``mark`` follows the header and is never cut
    (``" *"``)."""

    header: str
    right: bool = False
    limit: int | None = None
    shrink: int | None = None
    drop: bool = False
    abbreviate: bool = False
    mark: str = ""


def abbreviation(header: str, width: int) -> str:
    """``header`` in ``width`` characters: whole when it fits, else its start and "…"."""
    return header if len(header) <= width else header[: max(width, 1) - 1] + "…"


def _header_floor(column: Column, others: Sequence[str]) -> int:
    """The fewest characters ``column``'s header (with its mark) can take beside the headers
    ``others``: all of it unless it may be abbreviated, then ``ABBREVIATED``, or more where
    that start begins another header too (``generations`` and ``generations_per_min`` shown
    together are never both ``generat…``)."""
    name = column.header
    if not column.abbreviate or len(name) <= ABBREVIATED:
        return len(name) + len(column.mark)
    width = ABBREVIATED
    while width < len(name) and any(o.startswith(name[: width - 1]) for o in others):
        width += 1
    return width + len(column.mark)


def fit_widths(columns: Sequence[Column], rows: Sequence[Sequence[str]], width: int) -> list[int]:
    """Each column's width (0 = left out) so that one line per row fits in ``width``.

    Every column wants its widest cell or header (cells at most ``limit``) and can make do with
    its floor: ``shrink`` for its cells, ``ABBREVIATED`` for an ``abbreviate`` header (the mark
    kept; longer where it would read as another header shown). The ``drop`` columns are taken
    in their order while they fit at their floors (a later, narrower one still fits where an
    earlier one did not), so as many are kept as the width allows; the room left then gives cut
    columns back their width, those missing the least first, so that as few as possible stay
    cut. A table whose columns that cannot be dropped do not fit at their floors keeps them all
    (ids and numbers are never cut)."""
    naturals, cells = [], []
    for i, col in enumerate(columns):
        widest = max((len(str(r[i])) for r in rows), default=0)
        widest = min(widest, col.limit) if col.limit else widest
        naturals.append(max(len(col.header) + len(col.mark), widest))
        cells.append(widest if col.shrink is None else min(widest, col.shrink))

    def floors(kept: Sequence[int]) -> dict[int, int]:
        """The kept columns' floors: a header need differ only from the headers shown."""
        headers = {i: columns[i].header for i in kept}
        return {
            i: min(naturals[i], max(cells[i], _header_floor(columns[i], [
                h for j, h in headers.items() if j != i
            ])))
            for i in kept
        }  # fmt: skip

    def used(widths: dict[int, int]) -> int:
        return sum(widths.values()) + _GAP * (len(widths) - 1)

    kept = [i for i, c in enumerate(columns) if not c.drop]
    for i, col in enumerate(columns):  # the drop columns in their order, while they fit
        if col.drop and used(floors(sorted([*kept, i]))) <= width:
            kept = sorted([*kept, i])
    fitted = floors(kept)
    room = width - used(fitted)
    cut = [i for i in kept if fitted[i] < naturals[i]]
    for i in sorted(cut, key=lambda j: (naturals[j] - fitted[j], j)):  # whole again
        if naturals[i] - fitted[i] <= room:
            room -= naturals[i] - fitted[i]
            fitted[i] = naturals[i]
    for i in cut:  # what is left lengthens the first columns still cut
        more = max(0, min(room, naturals[i] - fitted[i]))
        fitted[i] += more
        room -= more
    return [fitted.get(i, 0) for i in range(len(columns))]


class Fitted(NamedTuple):
    """What ``print_fitted`` printed: the plain text, the headers of the columns left out and
    each column's header as shown ("" when left out; abbreviated where it was cut)."""

    text: str
    left_out: list[str]
    shown: list[str]


def print_fitted(
    columns: Sequence[Column],
    rows: Sequence[Sequence[Any]],
    sections: Sequence[int] = (),
    width: int | None = None,
) -> Fitted:
    """Print a table of one line per row that fits the terminal (``fit_widths``; a cut cell ends
    in "…", a cut header too), a rule after each row index in ``sections``; return its plain
    text, the headers of the columns left out and the headers as shown."""
    width = width or fit_console()
    cells = [[str(v) for v in row] for row in rows]
    widths = fit_widths(columns, cells, width)
    shown = [
        abbreviation(c.header, w - len(c.mark)) + c.mark if w else ""
        for c, w in zip(columns, widths, strict=True)
    ]
    table = Table(box=box.HORIZONTALS, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0))
    kept = [i for i, w in enumerate(widths) if w]
    for i in kept:
        table.add_column(
            shown[i],
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
    return Fitted(plain.export_text(), dropped, shown)


_NUMBER = re.compile(r"[-+]?[\d,.]*\d[\d,.]*(e[-+]?\d+)?[%kMGT]?")


def _rich_table(
    title: str,
    columns: Sequence[str],
    cells: Sequence[Sequence[str]],
    widths: Sequence[int] | None = None,
) -> Table:
    """A boxed table, one line per row (never wrapped): numbers right-aligned, text left. With
    ``widths`` (``wrapped_widths``), each header and cell wraps into its column instead
    (``wrap_cell``) and a rule separates the rows."""
    table = Table(title=title, show_lines=widths is not None)
    for i, col in enumerate(columns):
        numeric = all(_NUMBER.fullmatch(row[i]) or not row[i] for row in cells)
        justify: Literal["right", "left"] = "right" if numeric else "left"
        if widths is None:
            table.add_column(col, justify=justify, no_wrap=True)
        else:  # wrapped here, not by rich: its narrowing would break words
            header = "\n".join(wrap_cell(col, widths[i]))
            table.add_column(header, justify=justify, width=widths[i], no_wrap=True)
    for row in cells:
        if widths is None:
            table.add_row(*row)
        else:
            table.add_row(*["\n".join(wrap_cell(c, w)) for c, w in zip(row, widths, strict=True)])
    return table


def _longest_word(text: str) -> int:
    return max((len(word) for word in text.split()), default=0)


def wrap_cell(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken between its ``"; "``-separated
    items first (``error_slope 0.12;`` | ``coverage 0.95``: a name stays with its value), then
    at spaces; never inside a word (a word wider than ``width`` has a line of its own)."""
    items = text.split("; ")
    lines: list[str] = []
    current = ""
    for k, item in enumerate(items):
        piece = item + (";" if k < len(items) - 1 else "")
        joined = f"{current} {piece}" if current else piece
        if len(joined) <= width:
            current = joined
            continue
        if current:
            lines.append(current)
        words = textwrap.wrap(piece, width, break_long_words=False, break_on_hyphens=False)
        lines += words[:-1]
        current = words[-1] if words else ""
    return [*lines, current]


_BOX_EXTRA = 3  # a boxed column's padding (a space each side) and its border on the left


def wrapped_widths(
    columns: Sequence[str], cells: Sequence[Sequence[str]], width: int
) -> list[int] | None:
    """Each column's width for a boxed table that fits ``width`` with its headers and cells
    wrapped at spaces (``wrap_cell``), or None when even every column at its longest word does
    not fit (the table is then one block per row). The widest columns give way first, so the
    narrow ones (ids, numbers) keep one line."""
    naturals = [max([len(c), *(len(row[i]) for row in cells)]) for i, c in enumerate(columns)]
    floors = [
        max([_longest_word(c), *(_longest_word(row[i]) for row in cells)], default=1) or 1
        for i, c in enumerate(columns)
    ]
    extra = _BOX_EXTRA * len(columns) + 1  # the right border too
    if sum(floors) + extra > width:
        return None
    widths = list(naturals)
    while sum(widths) + extra > width:
        # the widest column that can still give way (the last of equals: text is often last)
        i = max((j for j in range(len(widths)) if widths[j] > floors[j]), key=lambda j: widths[j])
        widths[i] -= 1
    return widths


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
    fits; else the same table with its long headers and cells wrapped at spaces in their
    columns when every column at its longest word fits (``wrapped_widths``); else one block per
    row (``record_text``). Cells are never cut, nor broken inside a word. Returns the
    one-line-per-row text at its natural width (for an MLflow artifact, read in full)."""
    width = fit_console()
    text = table_text(title, columns, rows)
    cells = [[str(v) for v in r] for r in rows]
    if max(len(line) for line in text.splitlines()) <= width:
        console.print(_rich_table(title, columns, cells))
    elif (widths := wrapped_widths(columns, cells, width)) is not None:
        console.print(_rich_table(title, columns, cells, widths), width=width, crop=False)
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
