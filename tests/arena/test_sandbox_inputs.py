"""Bad sandbox input, as a user gives it: one line and exit 2 before any game (the arena
pipeline and the Eleusis referee run as separate processes, the way a user runs them)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.helpers.commands import run_cli, run_pipeline

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "agents"
BOT = f"agent=cmd:{sys.executable} {EXAMPLES / 'random_bot.py'}"
# a PATH without bubblewrap (the interpreter is named by its absolute path)
NO_BWRAP = {"PATH": str(Path(sys.executable).parent), "SPARRING_SANDBOX": ""}


def _one_line(proc) -> str:
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


def test_a_missing_sandbox_tool_is_one_line_naming_the_package(tmp_path):
    said = _one_line(run_pipeline("arena", BOT, "units=1", cwd=tmp_path, env=NO_BWRAP))
    assert "bubblewrap" in said and "apt-get install bubblewrap" in said
    assert "limits.sandbox=none" in said  # and the way to opt out
    assert not (tmp_path / "data").exists()  # nothing played, nothing written


def test_a_missing_sandbox_tool_refuses_the_referee_too(tmp_path):
    proc = run_cli("eleusis", "referee", "--deck", "uniform", "--", "true", cwd=tmp_path,
                   env=NO_BWRAP)  # fmt: skip
    said = _one_line(proc)
    assert "bubblewrap" in said and "--sandbox none" in said


def test_in_process_agents_need_no_sandbox(tmp_path):
    proc = run_pipeline("arena", "agent=random", "field=[first]", "units=1", "block=1",
                        cwd=tmp_path, env=NO_BWRAP, timeout=600)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]


@pytest.mark.parametrize(
    "override, says",
    [
        ("limits.read_only=[/no/such/weights]", "read_only=/no/such/weights is not allowed"),
        ("limits.read_only=[weights]", "read_only=weights is not allowed: expected an existing"),
        ("limits.processes=2", "processes=2 is not allowed: expected >= 4"),
        ("limits.disk_mb=0", "disk_mb=0 is not allowed: expected >= 1"),
        ("limits.sandbox=docker", "sandbox=docker is not allowed: expected one of bwrap, none"),
        ("units=1000000000", "units=1000000000 is not allowed"),
    ],
)
def test_limits_that_cannot_be_applied_are_one_line(tmp_path, override, says):
    said = _one_line(run_pipeline("arena", BOT, override, cwd=tmp_path))
    assert says in said, said


def test_the_referee_refuses_a_read_only_path_that_does_not_exist(tmp_path):
    proc = run_cli("eleusis", "referee", "--read-only", "/no/such/dir", "--deck", "uniform",
                   "--", "true", cwd=tmp_path)  # fmt: skip
    assert "--read-only /no/such/dir: expected an existing absolute path" in _one_line(proc)


def test_sandbox_none_says_once_that_programs_run_with_your_rights(tmp_path):
    proc = run_pipeline("arena", BOT, "field=[first]", "units=2", "block=1",
                        "limits.sandbox=none", cwd=tmp_path, env={"SPARRING_SANDBOX": ""},
                        timeout=600)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    said = proc.stderr + proc.stdout
    assert said.count("outside programs run with your rights, unsandboxed") == 1
    assert os.path.isdir(tmp_path / "data" / "arena")
