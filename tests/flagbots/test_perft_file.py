"""The perft file: the kernels' counts per position and depth, checked against the file and
the file against an independent plain-Python generator. A wrong count prints the counts per
first move ("divide") so the bad move shows."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sparring.flagbots.game import Position
from sparring.flagbots.rules import MAX_MOVES, make, perft, unmake
from tests.flagbots import reference_flagbots as reference

DATA = Path(__file__).resolve().parent / "data" / "flagbots.perft"
REFERENCE_LIMIT = 1_200_000  # larger counts are checked against the reference in the slow run


def entries() -> list[tuple[str, str, int, int]]:
    """(name, position text, depth, count) of every count in the file."""
    out = []
    for line in DATA.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, text, *counts = (part.strip() for part in line.split(";"))
        for item in counts:
            depth, count = item.removeprefix("D").split()
            out.append((name, text, int(depth), int(count)))
    return out


def kernel_divide(pos: Position, depth: int) -> dict[str, int]:
    buffers = np.zeros((depth + 2, MAX_MOVES), np.int64)
    key = np.int64(pos.key)
    out = {}
    for move in pos.legal_actions():
        key2 = make(pos.st, pos.undo_buf, pos.zob, key, move)
        out[pos.move_text(move)] = int(
            perft(pos.st, pos.undo_buf, pos.zob, key2, depth - 1, buffers, False)
        )
        unmake(pos.st, pos.undo_buf, pos.zob, key2)
    return out


@pytest.mark.parametrize(("name", "text", "depth", "count"), entries())
def test_kernel_perft_matches_the_file(name, text, depth, count):
    pos = Position.from_text(text)
    buffers = np.zeros((depth + 2, MAX_MOVES), np.int64)
    got = int(perft(pos.st, pos.undo_buf, pos.zob, np.int64(pos.key), depth, buffers, False))
    if got != count:
        divide = kernel_divide(pos, depth)
        lines = "\n".join(f"  {m}: {n}" for m, n in sorted(divide.items()))
        pytest.fail(f"{name} depth {depth}: {got} != {count}; per first move:\n{lines}")
    assert pos.to_text() == text  # perft leaves the position as it found it


def _reference_case(entry):
    name, text, depth, count = entry
    marks = [pytest.mark.slow] if count > REFERENCE_LIMIT else []
    return pytest.param(name, text, depth, count, marks=marks, id=f"{name}-D{depth}")


@pytest.mark.parametrize(("name", "text", "depth", "count"), map(_reference_case, entries()))
def test_the_file_agrees_with_the_independent_reference(name, text, depth, count):
    assert reference.perft(reference.Board(text), depth) == count


def test_every_kind_of_position_is_in_the_file():
    names = {name for name, *_ in entries()}
    assert {"start", "small board", "wall row", "walls 7x7", "near the limit"} <= names
    assert max(d for name, _, d, _ in entries() if name == "start") >= 4
