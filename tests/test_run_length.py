"""Bodies are bodies (#49): every pipeline's ``run`` in ``src/sparring/pipelines/`` reads as the
pipeline's story, at most ``MAX_RUN_LINES`` lines from its ``def`` to its last line; the chapters
are private helpers beside it, one job each. The check catches a planted 61-line ``run`` (a check
that cannot fail is a defect).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

BODIES = Path(__file__).resolve().parents[1] / "src" / "sparring" / "pipelines"
MAX_RUN_LINES = 60


def run_lengths(source: str) -> dict[str, int]:
    """The span in lines (``end_lineno - lineno + 1``, from the ``def`` line, decorators not
    counted) of each top-level function named ``run`` in ``source``, keyed ``run@<line>``."""
    return {
        f"run@{node.lineno}": node.end_lineno - node.lineno + 1
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name == "run"
        and node.end_lineno is not None
    }


def too_long(source: str, limit: int = MAX_RUN_LINES) -> dict[str, int]:
    """The top-level ``run`` functions of ``source`` longer than ``limit`` lines."""
    return {name: n for name, n in run_lengths(source).items() if n > limit}


def _modules() -> list[Path]:
    return sorted(p for p in BODIES.glob("*.py") if p.name != "__init__.py")


def _synthetic_run(lines: int) -> str:
    """A module whose top-level ``run`` spans exactly ``lines`` lines (``lines`` >= 2)."""
    body = "".join(f"    x{i} = {i}\n" for i in range(lines - 2))
    return f"import os\n\n\ndef run(job):\n    '''A story.'''\n{body}\n\ndef other():\n    pass\n"


def test_the_bodies_are_found():
    assert len(_modules()) >= 10, f"too few pipeline bodies under {BODIES}: {_modules()}"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: p.name)
def test_every_run_is_at_most_60_lines(path):
    lengths = run_lengths(path.read_text())
    assert lengths, f"{path.name} has no top-level run"
    long = {name: n for name, n in lengths.items() if n > MAX_RUN_LINES}
    assert not long, (
        f"{path.name}: run spans {long} lines (at most {MAX_RUN_LINES}): "
        f"split it into private helpers, one job each"
    )


def test_a_planted_61_line_run_is_caught():
    planted = _synthetic_run(MAX_RUN_LINES + 1)
    assert run_lengths(planted) == {"run@4": MAX_RUN_LINES + 1}
    assert too_long(planted) == {"run@4": MAX_RUN_LINES + 1}


def test_a_60_line_run_passes():
    exact = _synthetic_run(MAX_RUN_LINES)
    assert run_lengths(exact) == {"run@4": MAX_RUN_LINES}
    assert not too_long(exact)


def test_only_top_level_run_counts():
    """A method or a nested function called ``run`` is no pipeline body; a decorated, an
    ``async`` top-level ``run`` is, counted from its ``def``."""
    nested = "class A:\n    def run(self):\n" + "        x = 1\n" * 80
    assert run_lengths(nested) == {}
    decorated = "@wrap\nasync def run(job):\n" + "    x = 1\n" * 60
    assert too_long(decorated) == {"run@2": 61}
