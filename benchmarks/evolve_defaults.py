"""The default evolve, as a user runs it: wall time and the champion against every table.

    python benchmarks/evolve_defaults.py [--seeds 0 1 2]

Runs ``python pipelines/evolve.py seed=S`` with every other setting at its default (embedded Ray
on this machine's cores, a throw-away MLflow store and deal directory, so deal generation is
part of the time), and reports per seed the wall time, the champion's bb/100 against each
baseline table with its 95% lower bound, and whether it beats every table (lower bound > 0).
The figures as JSON on the last line.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import parser, report
from mlflow.tracking import MlflowClient

from sparring.poker.bots import BASELINES

ROOT = Path(__file__).resolve().parent.parent


def one_seed(seed: int, root: Path, overrides: list[str]) -> dict:
    uri = f"sqlite:///{root / 'mlflow.db'}"
    start = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "pipelines" / "evolve.py"),
            f"seed={seed}",
            f"tracking.uri={uri}",
            f"deals.root={root / 'deals'}",
            f"checkpoint_root={root / 'ck'}",
            *overrides,
        ],
        capture_output=True,
        text=True,
        cwd=root,
    )
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    client = MlflowClient(uri)
    exp = client.get_experiment_by_name("evolve")
    run = client.search_runs([exp.experiment_id], f"params.seed = '{seed}'")[0]
    m = run.data.metrics
    tables = {
        t: (m[f"champion_bb100_vs_{t}"], m[f"champion_bb100_ci_low_vs_{t}"]) for t in BASELINES
    }
    return {
        "seed": seed,
        "wall_s": wall,
        "tables": tables,
        "beats_every_table": all(low > 0 for _, low in tables.values()),
    }


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--set", nargs="*", default=[], help="overrides, e.g. trainers.hall_of_fame=0")
    p.add_argument("--keep", type=Path, help="keep each seed's directory (MLflow store) here")
    args = p.parse_args()
    overrides = (["ga.generations=20", "deals.heldout=300"] if args.quick else []) + args.set
    rows, results = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in args.seeds:
            # each seed on a fresh directory: its time includes making the deal sets
            root = (args.keep or Path(tmp)) / f"seed{seed}"
            root.mkdir(parents=True)
            r = one_seed(seed, root, overrides)
            results.append(r)
            lows = ", ".join(
                f"{t} {bb:+.1f} (low {lo:+.1f})" for t, (bb, lo) in r["tables"].items()
            )
            rows.append(
                (
                    f"seed {seed}: wall s",
                    r["wall_s"],
                    f"beats every table: {r['beats_every_table']}; {lows}",
                )
            )
    report("evolve_defaults", rows, {"runs": results})


if __name__ == "__main__":
    main()
