"""What every pipeline prints at the end: a small table and where its outputs are."""

from __future__ import annotations

import io
import sys
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from sparring.runtime.storage import Location

# Piped output (make run, CI, log files) gets a wider table than rich's 80-column default.
console = Console() if sys.stdout.isatty() else Console(width=140)


def print_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Print a rich table and return it as plain text (for an MLflow artifact). A cell or header
    too wide for the terminal wraps onto more lines; nothing is cut with an ellipsis."""
    table = Table(title=title)
    for col in columns:
        table.add_column(col, justify="right", overflow="fold")
    for row in rows:
        table.add_row(*[str(v) for v in row])
    console.print(table)
    plain = Console(width=120, record=True, file=io.StringIO())
    plain.print(table)
    return plain.export_text()


def print_locations(outputs: dict[str, Any], tracking_uri: str, run_id: str) -> None:
    """Print the output paths, the MLflow run and how to open the MLflow UI."""
    for name, path in outputs.items():
        shown = path.display() if isinstance(path, Location) else path
        console.print(f"[bold]{name}:[/bold] {shown}")
    console.print(f"[bold]MLflow run:[/bold] {run_id} in {tracking_uri}")
    if tracking_uri.startswith("sqlite"):
        console.print(f"  open the UI with: mlflow ui --backend-store-uri {tracking_uri}")
