"""Provenance of a run in a fresh clone: what a pipeline leaves behind (its store, the store's
lock, its data) does not make the checkout dirty; an edit of a tracked file does."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from mlflow.tracking import MlflowClient

from sparring.runtime.provenance import git_commit, git_dirty
from tests.helpers.commands import ROOT

GIT_AS_TEST = ["-c", "user.name=sparring-test", "-c", "user.email=test@localhost"]


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *GIT_AS_TEST, *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


def clone_of_this_tree(dest: Path) -> Path:
    """A ``git clone`` of the checkout whose one new commit holds the working tree as it is now
    (tracked files and new files git does not ignore): a clean clone of the code under test,
    its ``.gitignore`` included, whatever has been committed yet."""
    subprocess.run(["git", "clone", "-q", str(ROOT), str(dest)], check=True)
    listed = _git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    for name in filter(None, listed.split("\0")):
        source, target = ROOT / name, dest / name
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        elif target.exists():  # deleted in the working tree
            target.unlink()
    _git(dest, "add", "-A")
    _git(dest, "commit", "-q", "--allow-empty", "-m", "the working tree under test")
    return dest


def test_a_run_in_a_fresh_clone_leaves_it_clean_and_an_edit_makes_it_dirty(tmp_path):
    clone = clone_of_this_tree(tmp_path / "clone")
    assert git_dirty(clone) == "false"
    # The pipeline runs from the clone and imports the clone's sparring (its provenance reads
    # the clone's git), with the default store sqlite:///mlflow.db in the clone.
    env = {**os.environ, "PYTHONPATH": f"{clone / 'src'}{os.pathsep}{clone}"}
    env.pop("RAY_ADDRESS", None)
    done = subprocess.run(
        [
            sys.executable,
            "pipelines/equity.py",
            "trials=200",
            "classes=[AA]",
            "opponents=[1]",
            "ray.num_cpus=1",
        ],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    left = {p.name for p in clone.iterdir()}
    assert {"mlflow.db", "mlflow.db.lock", "mlartifacts", "data"} <= left, left

    client = MlflowClient(f"sqlite:///{clone / 'mlflow.db'}")
    [run] = client.search_runs([client.get_experiment_by_name("equity").experiment_id])
    assert run.data.tags["git_commit"] == git_commit(clone) != git_commit(ROOT)
    assert run.data.tags["git_dirty"] == "false"
    assert git_dirty(clone) == "false"

    with open(clone / "README.md", "a") as readme:
        readme.write("\nan edit\n")
    assert git_dirty(clone) == "true"
