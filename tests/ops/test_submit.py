"""``sparring submit`` as the README shows it, against a Ray head on this machine: the job
carries the checkout's code (the driver and every task import the shipped copy), records its
provenance, and a config that would lose its outputs is refused before anything is sent."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from sparring.poker.preflop import PREFLOP_SPEC
from sparring.runtime.datasets import read_table
from sparring.runtime.provenance import git_commit, git_dirty, lock_digest
from tests.services import free_port, wait_for

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
README_PORTS = ("6379", "8265", "52365")  # the head's GCS, dashboard and agent ports


def tryout_block() -> list[str]:
    """The README's try-out commands, one per line."""
    text = (ROOT / "README.md").read_text()
    block = text.split("<!-- submit-tryout:begin -->")[1].split("<!-- submit-tryout:end -->")[0]
    return [line for line in block.splitlines() if line and not line.startswith("```")]


def test_the_readme_tryout_runs_the_submitted_code_and_records_where_it_came_from(tmp_path):
    lines = tryout_block()
    exports = [line for line in lines if line.startswith("export ")]
    [head_line] = [line for line in lines if " ray start " in f" {line}"]
    [submit_line] = [line for line in lines if "sparring submit" in line]
    ports = {port: str(free_port()) for port in README_PORTS}

    def mapped(line: str) -> str:  # the README's ports may be taken on a test machine
        return re.sub(r"\b(6379|8265|52365)\b", lambda m: ports[m.group(1)], line)

    # The commands run from "the checkout": a directory with the project's .venv in it.
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    head = subprocess.Popen(
        ["bash", "-c", "; ".join([*exports, mapped(head_line)])],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own group: ended by PID below, never `ray stop`
    )
    try:
        wait_for(f"http://127.0.0.1:{ports['8265']}/api/version", 180)
        job = subprocess.run(
            ["bash", "-c", "; ".join([*exports, mapped(submit_line)])],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
    finally:
        os.killpg(head.pid, signal.SIGTERM)  # `ray start --block` tears its node down
        head.wait(timeout=60)
    said = job.stdout + job.stderr
    assert job.returncode == 0, said[-3000:]
    assert re.search(r"job \S+: SUCCEEDED", said)

    table = read_table(tmp_path / "data" / "submitted" / "preflop.parquet", PREFLOP_SPEC)
    assert table.num_rows == 6  # 3 classes x 2 opponent counts
    client = MlflowClient(f"sqlite:///{tmp_path / 'mlflow.db'}")
    [run] = client.search_runs([client.get_experiment_by_name("equity").experiment_id])
    tags = run.data.tags
    assert run.info.status == "FINISHED"
    assert tags["git_commit"] == git_commit(ROOT) != "unknown"
    assert tags["git_dirty"] == git_dirty(ROOT)
    assert tags["submitted_config_hash"] == tags["config_hash"]
    assert tags["uv_lock_matches"] == "true" and lock_digest(ROOT / "uv.lock")
    assert tags["mlflow.source.type"] == "JOB"
    # The driver and the task workers imported sparring from the shipped package, not from the
    # checkout the editable install points at.
    code = tags["sparring_code"].split(",")
    assert code and all("runtime_resources" in c and c.endswith("sparring") for c in code), code
    assert str(ROOT / "src") not in tags["sparring_code"]


@pytest.mark.parametrize(
    "overrides, says",
    [
        (["evolve"], "deals.root=data/deals is a relative path: a submitted job runs in a "),
        (
            ["evolve", "deals.root=s3://b/d", "checkpoint_root=ck"],
            "checkpoint_root=ck is a relative path",
        ),
        (
            ["equity", "output=/tmp/x.parquet", "tracking.uri=sqlite:///m.db"],
            "tracking.uri=sqlite:///m.db is a relative sqlite store",
        ),
        (
            ["equity", "output=/tmp/x.parquet", "tracking.uri=sqlite:////tmp/m.db"],
            "tracking.artifact_root=mlartifacts is a relative path",
        ),
        (["nope"], "pipeline=nope is not allowed: expected one of compare, eleusis_bench"),
        (["evolve", "ga.population=1"], "ga.population=1 is not allowed"),
    ],
)
def test_what_would_be_lost_or_wrong_is_refused_before_anything_is_sent(overrides, says):
    # a job server that does not exist: a refusal must come before any attempt to reach it
    done = subprocess.run(
        [str(BIN / "sparring"), "submit", "--address", "http://127.0.0.1:9", *overrides],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("sparring submit: error: ") and says in line, line


def test_a_dry_run_shows_the_job_with_the_cluster_defaults():
    done = subprocess.run(
        [
            str(BIN / "sparring"),
            "submit",
            "--dry-run",
            "evolve",
            "deals.root=s3://b/deals",
            "checkpoint_root=s3://b/ck",
            "ga.population=32",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(
        "exec python pipelines/evolve.py ray=cluster tracking=server deals.root=s3://b/deals "
        "checkpoint_root=s3://b/ck ga.population=32"
    )
