"""Evolve on one Ray node against two: generations per minute, identical results, the driver.

    python benchmarks/cluster.py [--generations 20] [--population 64] [--train 300]

In one run, on this machine: a Ray cluster of one node with 1 CPU, then one of two nodes with
1 CPU each (a head and a second raylet, ``ray start``), each running
``python pipelines/evolve.py ray=cluster`` with the same config. Reports generations per
minute of the generation loop (deal generation and the champion's benchmark excluded), also
from generation 2 on (a new node's workers start and load their kernels in the first), the
speed-ups, whether the results are identical, and the driver's share of the wall time per
generation (everything but waiting for the population's tasks: the trainer challenge, breeding,
the checkpoint and the MLflow batch). The figures as JSON on the last line.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _common import parser, report
from mlflow.tracking import MlflowClient

from tests.helpers.services import local_cluster

ROOT = Path(__file__).resolve().parent.parent


def run_on(cluster, root: Path, name: str, overrides: list[str]) -> dict:
    uri = f"sqlite:///{root / f'{name}.db'}"
    work = root / name
    work.mkdir()
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "pipelines" / "evolve.py"),
            "ray=cluster",
            f"ray.address={cluster.address}",
            f"tracking.uri={uri}",
            f"deals.root={root / 'deals'}",  # shared: the second run reuses the deal sets
            "registry.register=false",
            *overrides,
        ],
        cwd=work,
        env=cluster.env,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-3000:])
    client = MlflowClient(uri)
    run = client.search_runs([client.get_experiment_by_name("evolve").experiment_id])[0]
    m = run.data.metrics
    evaluate = sum(x.value for x in client.get_metric_history(run.info.run_id, "evaluate_s"))
    history = sorted(
        client.get_metric_history(run.info.run_id, "best_fitness"), key=lambda x: x.step
    )
    best = [x.value for x in history]
    loop_s = m["generations"] * 60 / m["generations_per_min"]
    # warm: from the end of generation 1 to the end of the last (a new node's workers start
    # and load their compiled kernels during the first)
    warm_s = (history[-1].timestamp - history[0].timestamp) / 1000
    return {
        "generations_per_min": m["generations_per_min"],
        "warm_generations_per_min": 60 * (len(history) - 1) / warm_s,
        "loop_s": loop_s,
        "driver_share": 1 - evaluate / loop_s,
        "nodes_used": m.get("nodes_used"),
        "best_fitness": best,
        "champion": {k: v for k, v in m.items() if k.startswith("champion_bb100")},
    }


def main() -> None:
    p = parser(__doc__.split("\n")[0])
    p.add_argument("--generations", type=int, default=20)
    p.add_argument("--population", type=int, default=64)
    p.add_argument("--train", type=int, default=300)
    args = p.parse_args()
    overrides = [
        f"ga.generations={args.generations}",
        f"ga.population={args.population}",
        f"deals.train={args.train}",
        "deals.heldout=500",
    ]
    root = Path(tempfile.mkdtemp(prefix="cluster-bench-"))
    results = {}
    for nodes in (1, 2):
        with local_cluster(root / f"ray-{nodes}", workers=nodes - 1, cpus=1) as cluster:
            results[nodes] = run_on(cluster, root, f"nodes-{nodes}", overrides)
        r = results[nodes]
        print(
            f"{nodes} node(s): {r['generations_per_min']:.1f} generations/min, "
            f"driver {100 * r['driver_share']:.0f}% of the loop, nodes used {r['nodes_used']}",
            flush=True,
        )
    one, two = results[1], results[2]
    speedup = two["generations_per_min"] / one["generations_per_min"]
    warm = two["warm_generations_per_min"] / one["warm_generations_per_min"]
    identical = one["best_fitness"] == two["best_fitness"] and one["champion"] == two["champion"]
    rows = [
        ("generations/min, 1 node x 1 CPU", one["generations_per_min"], ""),
        ("generations/min, 2 nodes x 1 CPU", two["generations_per_min"], ""),
        ("speed-up, whole loop", speedup, "goal >= 1.8"),
        ("warm generations/min, 1 node", one["warm_generations_per_min"], "after generation 1"),
        ("warm generations/min, 2 nodes", two["warm_generations_per_min"], ""),
        ("speed-up, warm", warm, "goal >= 1.8"),
        ("driver share of a generation, 1 node", 100 * one["driver_share"], "%"),
        ("driver share of a generation, 2 nodes", 100 * two["driver_share"], "%"),
        ("identical results", float(identical), "1 = yes"),
    ]
    report(
        "cluster",
        rows,
        {
            "config": overrides,
            "one_node": one,
            "two_nodes": two,
            "speedup": speedup,
            "warm_speedup": warm,
            "identical": identical,
        },
    )


if __name__ == "__main__":
    main()
