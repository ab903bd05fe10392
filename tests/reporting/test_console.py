"""Tables a person reads on any terminal: one line per row when it fits, else one block per row;
never a cell cut or a header broken mid-word."""

from __future__ import annotations

import pytest

from sparring.reporting.console import print_table

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


@pytest.mark.parametrize("width", [40, 60, 100])
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


def test_a_long_value_wraps_at_spaces_under_itself(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "50")
    headline = "; ".join(f"metric_{i} {i * 1.5}" for i in range(12))
    print_table("Latest results", ["pipeline", "headline"], [["validate", headline]])
    out = capsys.readouterr().out
    block = [x for x in out.splitlines() if x.startswith("  ")]
    assert all(len(x) <= 50 for x in block), out
    column = block[1].index("metric_0")
    assert all(x[:column].strip() == "" for x in block[2:])  # continuation under the value
    assert " ".join(" ".join(block[1:]).split()[1:]) == headline  # nothing lost or cut
