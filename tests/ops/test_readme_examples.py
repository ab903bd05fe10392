"""The documented examples for reading the MLflow record (README.md and the site's pages) work
when pasted as written."""

from __future__ import annotations

import os
import subprocess

from tests.helpers.commands import ROOT
from tests.helpers.docs import pages
from tests.reporting.test_compare_readable import populate

COMMANDS = (
    ".venv/bin/sparring compare",
    ".venv/bin/python pipelines/compare.py",
    ".venv/bin/sparring results",
    ".venv/bin/sparring retrain history",
)


def readme_examples() -> list[str]:
    """The command lines (in code blocks) of README.md and every page of the site that read
    runs: compare, results, history; once each, in the pages' order."""
    lines = []
    for doc in pages():
        inside = False
        for line in doc.read_text().splitlines():
            if line.startswith("```"):
                inside = not inside
            elif inside and line.startswith(COMMANDS) and line not in lines:
                lines.append(line)
    return lines


def test_the_readme_examples_work_when_pasted(tmp_path):
    examples = readme_examples()
    assert len(examples) >= 9, examples  # every form is documented (and found here)
    # a working directory like a checkout's after some runs: mlflow.db, .venv, pipelines/
    populate(
        f"sqlite:///{tmp_path / 'mlflow.db'}",
        tmp_path / "mlartifacts",
        sweep="evolve-ga_operators-20261129-180000",
    )
    for name in (".venv", "pipelines"):
        (tmp_path / name).symlink_to(ROOT / name)
    env = {**os.environ, "HYDRA_FULL_ERROR": "1"}
    procs = [  # all at once: each is mostly Python starting up
        subprocess.Popen(
            ["bash", "-c", line],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for line in examples
    ]
    for line, proc in zip(examples, procs, strict=True):
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"{line}\n{out[-2000:]}\n{err[-2000:]}"
        if "--format csv" in line:  # only the data, for a script
            assert out.startswith("rank,run_id,name,status,sweep,"), out
            continue
        assert " by " in out or "results" in line or "history" in line, line
        if "trials = " in line:  # the filter kept only the run with trials=4000
            assert "1 run by trials_per_s" in out, out


def test_the_library_block_runs_as_pasted(tmp_path):
    """The Python block of the site's library page (``## One call per game``), one call per
    game, run by a fresh process in an empty directory: every call exists and does what its
    comment says."""
    from tests.helpers.docs import page, section

    text = section(page("reference/library.md"), "## One call per game")
    block = text.split("```python\n", 1)[1].split("```", 1)[0]
    assert all(game in block for game in ("flagbots", "poker", "Mus", "Eleusis"))
    done = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "python"), "-c", block],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0] == "[8 0]"  # a royal flush and a high card
    assert lines[2].endswith("9/1NNNNNNN1/9/9/9/9/9/1SSSSSSS1/9 s 80")
