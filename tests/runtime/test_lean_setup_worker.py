"""The local head's worker launcher: the variables of a driver's runtime environment reach the
worker exactly as Ray's ``setup_worker.py`` sets them, without importing Ray; anything else it
hands to Ray's own launcher unchanged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sparring.runtime.ray import lean_setup_worker
from sparring.runtime.ray.lean_setup_worker import plain_context

LAUNCHER = Path(lean_setup_worker.__file__)
# What a "worker" prints here: its variables and its arguments.
PROBE = (
    "import json, os, sys; print(json.dumps({'x': os.environ.get('X'), 'y': os.environ.get('Y'),"
    " 'argv': sys.argv[1:]}))"
)


def _context(**fields) -> str:
    return "--serialized-runtime-env-context=" + json.dumps(fields)


def _launch(*args: str, env: dict[str, str] | None = None) -> tuple[dict, set[str]]:
    """What the worker printed, and the modules its launcher imported before the exec (the
    worker is a new image: ``-X importtime`` is the launcher's alone)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", str(LAUNCHER), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    imported = {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    return json.loads(done.stdout.strip().splitlines()[-1]), imported


def test_the_raylet_still_recognizes_it_as_the_setup_worker():
    # The raylet drops argv[1] from a worker's command when a job has no runtime environment,
    # if its path contains "setup_worker.py": otherwise every such worker would pay for it.
    assert "setup_worker.py" in LAUNCHER.name


def test_a_variables_only_python_worker_gets_its_variables_expanded_as_ray_does():
    seen, imported = _launch(
        "-c",
        PROBE,
        "--runtime-env-hash=42",
        "--language=PYTHON",
        _context(env_vars={"X": "${HOME}/a:${NOT_SET_ANYWHERE}", "Y": "plain"}),
        env={"HOME": "/h"},
    )
    assert seen["x"] == "/h/a:" and seen["y"] == "plain"
    assert seen["argv"] == ["--runtime-env-hash=42"]  # the worker's own arguments only
    assert "json" in imported and not {m for m in imported if m.split(".")[0] == "ray"}


@pytest.mark.parametrize(
    "args",
    [
        ["--language=JAVA", _context(env_vars={"X": "1"})],
        ["--language=PYTHON", _context(env_vars={"X": "1"}, command_prefix=["nice"])],
        ["--language=PYTHON", _context(py_executable="/usr/bin/python3")],
        ["--language=PYTHON", _context(env_vars={"X": "1"}, container={"image": "x"})],
        ["--language=PYTHON", "--serialized-runtime-env-context={not json"],
        ["--language=PYTHON"],
    ],
)
def test_anything_but_variables_for_this_python_goes_to_rays_own_launcher(args):
    assert plain_context(["default_worker.py", *args]) is None


def test_rays_own_launcher_runs_what_the_short_path_does_not_take():
    # a command prefix: only Ray's launcher knows how to run one (through bash)
    seen, _ = _launch(
        "-c",
        PROBE,
        "--language=PYTHON",
        _context(env_vars={"X": "from-ray"}, command_prefix=["export", "Y=prefixed", "&&"]),
    )
    assert seen == {"x": "from-ray", "y": "prefixed", "argv": []}


def test_a_bad_choice_of_launcher_is_refused_before_a_head_starts(tmp_path, monkeypatch):
    from sparring.runtime.ray import local_head

    monkeypatch.setenv("SPARRING_RAY_SETUP_WORKER", "fast")
    with pytest.raises(local_head.HeadError) as refused:
        local_head.ensure(where=tmp_path)
    assert str(refused.value) == (
        "SPARRING_RAY_SETUP_WORKER=fast is not allowed: expected lean (the default) or ray"
    )
    assert local_head.read(tmp_path) is None and not local_head.log_file(tmp_path).exists()
