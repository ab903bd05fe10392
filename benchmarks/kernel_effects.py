"""What a faster kernel does for a pipeline: evolve's generations per minute at its default
config, with the code of an earlier commit and with this checkout, in one run.

    python benchmarks/kernel_effects.py [--before REV] [--generations G] [--rounds R] [--quick]

``REV`` (default: the last commit before issue #52's table engine) is checked out into a
temporary git worktree; each side runs ``pipelines/evolve.py`` as a user does (its own process,
an embedded Ray of 2 CPUs, ``PYTHONPATH`` pointing at its own ``src``), on the same deal sets,
the two in turn for ``R`` rounds. A generation's time is the ``wall_s`` evolve logs for it to
MLflow; the first two generations of each run (numba compiling, Ray warming up) are left out,
and each side keeps its median. Only evolve is measured: of the kernels issue #52 changed, the
table engine is the one a pipeline waits for (validate and the arena's Mus run the Mus engine,
which did not change).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import parser, report

ROOT = Path(__file__).resolve().parent.parent
BEFORE = "b61c342"  # main before "Kernels (#52): the table engine plays each preflop once ..."
SKIPPED = 2  # generations of each run left out: compiling and warming up


def generation_seconds(src: Path, workdir: Path, name: str, generations: int, deals: Path) -> list:
    """Run evolve at its defaults with ``src`` on the path; each generation's wall seconds."""
    from mlflow.tracking import MlflowClient

    store = workdir / f"{name}.db"
    env = {**os.environ, "PYTHONPATH": str(src), "RAY_USAGE_STATS_ENABLED": "0"}
    subprocess.run(
        [sys.executable, str(ROOT / "pipelines" / "evolve.py"), "ray=embedded",
         "ray.num_cpus=2", f"ga.generations={generations}", f"deals.root={deals}",
         f"checkpoint_root={workdir / name}-ck", f"tracking.uri=sqlite:///{store}",
         f"tracking.artifact_root={workdir / name}-art", "registry.register=false",
         f"hydra.run.dir={workdir / name}-hydra"],
        cwd=workdir, env=env, check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    client = MlflowClient(f"sqlite:///{store}")
    [run] = client.search_runs([client.get_experiment_by_name("evolve").experiment_id])
    history = sorted(client.get_metric_history(run.info.run_id, "wall_s"), key=lambda m: m.step)
    return [m.value for m in history][SKIPPED:]


def main() -> None:
    args = parser(__doc__)
    args.add_argument("--before", default=BEFORE, help=f"the earlier commit (default {BEFORE})")
    args.add_argument("--generations", type=int, default=12, help="generations a run (12)")
    args.add_argument("--rounds", type=int, default=2, help="runs of each side, in turn (2)")
    opts = args.parse_args()
    generations = 5 if opts.quick else opts.generations
    rounds = 1 if opts.quick else opts.rounds
    seconds: dict[str, list[float]] = {"before": [], "after": []}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        tree = work / "before"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), opts.before],
            check=True, capture_output=True,
        )  # fmt: skip
        try:
            for r in range(rounds):
                for side, src in (("before", tree / "src"), ("after", ROOT / "src")):
                    seconds[side] += generation_seconds(
                        src, work, f"{side}{r}", generations, work / "deals"
                    )
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)])
    before = 60 / statistics.median(seconds["before"])
    after = 60 / statistics.median(seconds["after"])
    note = f"{len(seconds['after'])} generations, median; speed-up {after / before:.2f}x"
    report(
        "kernel effects: evolve at its defaults (embedded Ray, 2 CPUs)",
        [
            (f"generations/min, before ({opts.before})", before, ""),
            ("generations/min, this checkout", after, note),
        ],
        {
            "before": opts.before,
            "generations_per_min_before": round(before, 2),
            "generations_per_min_after": round(after, 2),
            "ratio": round(after / before, 2),
            "quick": opts.quick,
        },
    )


if __name__ == "__main__":
    main()
