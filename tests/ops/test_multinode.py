"""Two Ray nodes on this machine (a head and a second raylet, 1 CPU each): evolve (with its
deal generation) spreads over both with its deals and checkpoints on an S3 server, gives exactly
the single-node results, and survives the second node's raylet being killed in the middle."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from tests.helpers.commands import pipeline_argv, wait_while_running
from tests.helpers.services import local_cluster
from tests.helpers.sockets import descendants

EVOLVE = [
    "ga.population=16",
    "ga.generations=12",
    "deals.train=60",
    "deals.heldout=150",
    "registry.register=false",
]
pytestmark = pytest.mark.slow  # ~2 minutes: two Ray nodes and three evolutions


def evolve(tmp: Path, name: str, extra: list[str], env: dict | None = None) -> subprocess.Popen:
    """``pipelines/evolve.py`` in its own directory, logging to ``<tmp>/<name>.db``; ``env``
    is the whole environment (a cluster's has no RAY_ADDRESS), None: this process's."""
    work = tmp / name
    work.mkdir()
    return subprocess.Popen(
        pipeline_argv("evolve", *EVOLVE, f"tracking.uri=sqlite:///{tmp / f'{name}.db'}", *extra),
        cwd=work,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def outcome(tmp: Path, name: str, proc: subprocess.Popen) -> dict:
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err.decode()[-3000:]
    client = MlflowClient(f"sqlite:///{tmp / f'{name}.db'}")
    run = client.search_runs([client.get_experiment_by_name("evolve").experiment_id])[0]
    history = client.get_metric_history(run.info.run_id, "best_fitness")
    return {
        "best_fitness": [m.value for m in sorted(history, key=lambda m: m.step)],
        "champion": {k: v for k, v in run.data.metrics.items() if k.startswith("champion_")},
        "nodes_used": run.data.metrics.get("nodes_used"),
        "nodes": run.data.tags.get("ray_nodes", ""),
        "db": tmp / f"{name}.db",
    }


def generations_logged(db: Path) -> int:
    client = MlflowClient(f"sqlite:///{db}")
    exp = client.get_experiment_by_name("evolve")
    if exp is None:
        return 0
    runs = client.search_runs([exp.experiment_id])
    if not runs:
        return 0
    return len(client.get_metric_history(runs[0].info.run_id, "best_fitness"))


def on_s3(bucket: str, run: str, endpoint: str) -> list[str]:
    """Overrides that put a run's deals and checkpoints on the S3 server."""
    return [
        f"deals.root={bucket}/{run}/deals",
        f"checkpoint_root={bucket}/{run}/checkpoints",
        f"storage.endpoint={endpoint}",
    ]


def stored(bucket: str, run: str, endpoint: str) -> dict[str, bytes]:
    """The objects a run left on the S3 server: their key below the run's prefix -> bytes."""
    import pyarrow.fs as pafs

    fs = pafs.S3FileSystem(endpoint_override=endpoint.split("://")[1], scheme="http")
    prefix = f"{bucket.split('://')[1]}/{run}"
    found = fs.get_file_info(pafs.FileSelector(prefix, recursive=True))
    objects = {}
    for info in found:
        if info.type == pafs.FileType.File:
            with fs.open_input_stream(info.path) as f:
                objects[info.path.removeprefix(f"{prefix}/")] = f.read()
    return objects


def digests(objects: dict[str, bytes]) -> set[str]:
    """The recorded SHA-256 of every deal shard among ``objects``."""
    return {v.decode().split()[0] for k, v in objects.items() if k.endswith(".parquet.sha256")}


def test_two_nodes_share_the_work_and_a_lost_node_changes_nothing(tmp_path, s3, s3_bucket):
    single = outcome(tmp_path, "single", evolve(tmp_path, "single", ["ray.num_cpus=2"]))
    assert single["nodes_used"] == 1
    with local_cluster(tmp_path / "cluster", workers=1, cpus=1) as cluster:
        on_cluster = ["ray=cluster", f"ray.address={cluster.address}"]
        clean_run = evolve(
            tmp_path, "clean", [*on_cluster, *on_s3(s3_bucket, "clean", s3.endpoint)], cluster.env
        )
        clean = outcome(tmp_path, "clean", clean_run)
        assert clean["nodes_used"] == 2, clean["nodes"]  # tasks ran on both nodes
        assert clean["best_fitness"] == single["best_fitness"]
        assert clean["champion"] == single["champion"]
        objects = stored(s3_bucket, "clean", s3.endpoint)
        # 2 + 3 deal shards written by tasks on either node, each with its digest
        assert sum(name.endswith(".parquet") for name in objects) == 5
        assert sum(name.endswith(".parquet.sha256") for name in objects) == 5
        assert sorted(Path(n).name for n in objects if n.endswith(".npz")) == [
            f"gen-{g:05d}.npz" for g in range(1, 13)
        ]

        # handgen on the cluster writes the held-out set evolve made: the same bytes.
        handgen = subprocess.run(  # cluster.env whole: not run_pipeline's os.environ under it
            pipeline_argv(
                "handgen",
                *["deals=150", "table_size=10", "equity_trials=500", "seed=2", "shard_size=50"],
                *on_cluster,
                f"output_root={s3_bucket}/handgen",
                f"storage.endpoint={s3.endpoint}",
                f"tracking.uri=sqlite:///{tmp_path / 'handgen.db'}",
            ),
            cwd=tmp_path,
            env=cluster.env,
            capture_output=True,
            text=True,
        )
        assert handgen.returncode == 0, handgen.stderr[-3000:]
        made = stored(s3_bucket, "handgen", s3.endpoint)
        assert len(made) == 6 and {Path(k).name for k in made} <= {Path(k).name for k in objects}
        assert digests(made) <= digests(objects)

        # The fault: the second node's raylet is killed after its first generation.
        proc = evolve(
            tmp_path, "fault", [*on_cluster, *on_s3(s3_bucket, "fault", s3.endpoint)], cluster.env
        )
        wait_while_running(
            proc, lambda: generations_logged(tmp_path / "fault.db") >= 1, "generation logged"
        )  # 11 left: lost mid-run
        raylets = [
            pid
            for pid in descendants(cluster.workers[0].pid)
            if Path(f"/proc/{pid}/comm").read_text().strip() == "raylet"
        ]
        assert len(raylets) == 1
        os.kill(raylets[0], signal.SIGKILL)
        fault = outcome(tmp_path, "fault", proc)
    assert fault["best_fitness"] == single["best_fitness"]
    assert fault["champion"] == single["champion"]
