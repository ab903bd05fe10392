"""Tables a person reads on any terminal: one line per row when it fits, else the table with its
cells wrapped at spaces when that fits, else one block per row; never a cell cut or a word
broken. Compare's fitted table: params kept while they fit, headers abbreviated before a column
is left out."""

from __future__ import annotations

import pytest

from sparring.reporting.console import (
    Column,
    fit_widths,
    print_fitted,
    print_table,
    record_text,
)

TITLE = "Retrain decisions (retrain, sqlite:///mlflow.db)"
COLUMNS = ["started (UTC)", "id", "model", "decision", "edge bb/100", "interval", "run"]
ROWS = [
    [
        "2026-12-01 14:02",
        "2026-12-01",
        "sparring-holdem-champion",
        "kept",
        "-4.07",
        "[-14.10, +5.95] (95%)",
        "b04e2f0d",
    ],
    [
        "2026-12-02 03:00",
        "2026-12-02",
        "sparring-holdem-champion",
        "promoted",
        "12.5",
        "[+3.20, +21.80] (95%)",
        "9c1d2e3f",
    ],
]


def test_a_wide_terminal_gets_one_line_per_row_and_numbers_right_aligned(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    text = print_table(TITLE, COLUMNS, ROWS)
    out = capsys.readouterr().out
    for row in ROWS:
        (line,) = [x for x in out.splitlines() if row[-1] in x]
        assert all(cell in line for cell in row)  # the whole row, uncut, on one line
    header = next(x for x in out.splitlines() if "started (UTC)" in x)
    assert "edge bb/100" in header and "decision" in header  # no header broken
    (kept,) = [x for x in out.splitlines() if "kept" in x]
    (promoted,) = [x for x in out.splitlines() if "promoted" in x]
    assert kept.index("-4.07") + 5 == promoted.index("12.5") + 4  # right-aligned
    assert kept.index("kept") == promoted.index("promoted")  # text left-aligned
    assert text.count("\n") == out.count("\n")


@pytest.mark.parametrize("width", [40, 60, 90])
def test_a_narrow_terminal_gets_a_block_per_row_with_every_cell_whole(capsys, monkeypatch, width):
    monkeypatch.setenv("COLUMNS", str(width))
    text = print_table(TITLE, COLUMNS, ROWS)
    out = capsys.readouterr().out
    blocks = out.split("── ")[1:]
    assert [b.split()[0] for b in blocks] == ["1", "2"]
    for block, row in zip(blocks, ROWS, strict=True):  # each cell whole, after its header
        lines = block.splitlines()[1:]
        assert [x[2:].split("  ", 1)[0] for x in lines] == COLUMNS, block
        assert [x[2:].split("  ", 1)[1].strip() for x in lines] == row, block
        # a line is wider than the terminal only when one word is
        assert all(len(x) <= width or " " not in x.strip()[16:] for x in lines), block
    # the returned text (an MLflow artifact) keeps one line per row whatever the terminal
    assert all(any(r[-1] in x and r[0] in x for x in text.splitlines()) for r in ROWS)


def _row_cells(out: str) -> list[list[str]]:
    """The cells of a boxed, wrapped table's body, each cell's lines joined by a space."""
    rows: list[list[str]] = []
    current: list[list[str]] = []
    body = out.split("╇")[-1].split("\n", 1)[1]  # below the header's rule
    for line in body.splitlines():
        if line.startswith(("├", "└")):  # the rule after a row, or the table's end
            rows.append([" ".join(" ".join(part).split()) for part in zip(*current, strict=True)])
            current = []
        elif line.startswith("│"):
            current.append(line.strip("│").split("│"))
    return rows


def test_a_table_that_fits_wrapped_is_a_table_at_100_columns(capsys, monkeypatch):
    """#47 item 20: at 100 columns the decisions are a table (not a block per row): the long
    cells wrap at spaces in their columns, no word broken, nothing cut."""
    monkeypatch.setenv("COLUMNS", "100")
    text = print_table(TITLE, COLUMNS, ROWS)
    out = capsys.readouterr().out
    assert "── 1" not in out and "┃" in out  # a boxed table, not blocks
    assert max(len(x) for x in out.splitlines()) <= 100, out
    assert _row_cells(out) == ROWS, out  # every cell whole, in its own row and column
    header = " ".join(x for x in out.splitlines() if x.startswith("┃"))
    assert all(word in header.split() for col in COLUMNS for word in col.split())
    assert all(any(r[-1] in x and r[0] in x for x in text.splitlines()) for r in ROWS)


def test_a_long_value_wraps_between_items_in_its_column(capsys, monkeypatch):
    """A headline of ``name value`` items wraps between items, each whole on one line."""
    monkeypatch.setenv("COLUMNS", "50")
    headline = "; ".join(f"metric_{i} {i * 1.5}" for i in range(12))
    print_table("Latest results", ["pipeline", "headline"], [["validate", headline]])
    out = capsys.readouterr().out
    assert "┃" in out and max(len(x) for x in out.splitlines()) <= 50, out
    [[pipeline, cell]] = _row_cells(out)
    assert pipeline == "validate" and cell == headline
    for i in range(12):  # each item on one line
        assert any(f"metric_{i} {i * 1.5}" in x for x in out.splitlines()), out


def test_a_block_wraps_a_long_value_at_spaces_under_itself():
    headline = "; ".join(f"metric_{i} {i * 1.5}" for i in range(12))
    out = record_text("Latest results", ["pipeline", "headline"], [["validate", headline]], 50)
    block = [x for x in out.splitlines() if x.startswith("  ")]
    assert all(len(x) <= 50 for x in block), out
    column = block[1].index("metric_0")
    assert all(x[:column].strip() == "" for x in block[2:])  # continuation under the value
    assert " ".join(" ".join(block[1:]).split()[1:]) == headline  # nothing lost or cut


def _width(widths: list[int]) -> int:
    kept = [w for w in widths if w]
    return sum(kept) + 2 * (len(kept) - 1)


def test_a_narrow_column_that_fits_is_kept_after_a_wide_one_that_does_not():
    """A dropped column never leaves room unused that a later column fits in."""
    columns = [Column("id"), Column("wide", drop=True), Column("seed", drop=True)]
    rows = [["ab12cd34", "x" * 30, "1"]]
    widths = fit_widths(columns, rows, 20)
    assert widths == [8, 0, 4]


def test_headers_are_abbreviated_before_a_column_is_left_out():
    """Columns whose values are narrower than their headers make do with abbreviated headers
    (the mark kept whole) so that every column fits; the room left gives back whole headers,
    the shortest cut first."""
    columns = [
        Column("id"),
        Column("crossover_policy", drop=True, abbreviate=True, mark=" *"),
        Column("p_mutation", drop=True, abbreviate=True),
        Column("seed", drop=True),
        Column("generations_per_min", right=True, abbreviate=True),
    ]
    rows = [["ab12cd34", "cycle", "0.3", "1", "12.35k"]]
    natural = fit_widths(columns, rows, 200)
    assert natural == [8, 18, 10, 4, 19]
    widths = fit_widths(columns, rows, 50)
    assert all(widths) and _width(widths) <= 50
    assert widths[2] == 10  # p_mutation whole: it missed the least
    assert widths[1] >= 8 + 2 and widths[4] >= 8


def test_an_abbreviation_never_reads_as_another_header(capsys):
    """``generations`` and ``generations_per_min`` are never both ``generat…``: a header is
    cut only after the start it shares with another."""
    columns = [
        Column("generations", drop=True, abbreviate=True),
        Column("generations_per_min", right=True, abbreviate=True),
    ]
    fitted = print_fitted(columns, [["200", "12.35k"]], width=26)
    assert fitted.shown == ["generations", "generations_…"] and not fitted.left_out
    assert max(len(x) for x in fitted.text.splitlines()) <= 26
