"""A command's one line (an error, "interrupted", the resume command) is the last line on its
stderr, whatever its teardown writes after it: seen in CI, Ray's C++ threads logged "Failed to
push error to driver" as the driver shut down, after evolve's "terminated (SIGTERM); ..." line."""

from __future__ import annotations

import subprocess
import sys

import pytest

# A teardown that writes below Python, as Ray's C++ logger does, after the line is said.
SCRIPT = """
import os, sys
from sparring.runtime.errors import say_last
{say}("terminated (SIGTERM); run the same command again to resume")
os.write(2, b"[E task_manager.cc:1545] Failed to push error to driver\\n")
print("a Python line too", file=sys.stderr)
sys.exit(143)
"""


@pytest.mark.parametrize("say", ["say_last", "print"])
def test_what_the_teardown_writes_after_the_line_does_not_show(say):
    """The control, with a plain print: the teardown's lines come after the line."""
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(say=say)], capture_output=True, text=True, timeout=60
    )
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 143
    if say == "say_last":
        assert lines == ["terminated (SIGTERM); run the same command again to resume"]
    else:
        assert lines[-1] == "a Python line too" and "Failed to push error" in lines[-2]


def test_the_sparring_program_keeps_its_error_last(tmp_path):
    """``sparring`` (``console``, as the installed program and ``python -m sparring.cli`` run it)
    keeps an error's status and its line."""
    from tests.helpers.commands import run_cli

    done = run_cli("results", "--tracking-uri", f"sqlite:///{tmp_path}", cwd=tmp_path)
    assert done.returncode == 2
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("sparring results: error: "), done.stderr
