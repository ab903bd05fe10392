"""What a faster kernel does for a pipeline, with the code of an earlier commit and with this
checkout, in one run:

- ``evolve``: generations per minute at its default config (the table engine);
- ``validate``: grid cells per second at ``make run``'s grid (the compiled Mus engine).

    python benchmarks/kernel_effects.py [--pipeline evolve|validate] [--before REV]
                                        [--generations G] [--rounds R] [--quick]

``REV`` (default: the last commit before that pipeline's kernel changed) is checked out into a
temporary git worktree; each side runs the pipeline's script as a user does (its own process,
an embedded Ray of 2 CPUs, ``PYTHONPATH`` pointing at its own ``src``), the two in turn for
``R`` rounds, and keeps its median.

- evolve: a generation's time is the ``wall_s`` evolve logs for it to MLflow, on the same deal
  sets; the first two generations of each run (numba compiling, Ray warming up) are left out.
- validate: a run's cells over the ``wall_s`` it logs (the grid, not the session's start). Its
  ``match`` cells play ModelingBots, which stay on the Python engine.

The arena's Mus is not measured: its agents are programs and bots of any kind, so it plays the
Python engine (the compiled one plays synthetic players only).
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
BEFORE = {
    "evolve": "b61c342",  # main before "Kernels (#52): the table engine plays each preflop once"
    "validate": "0c50ae0",  # main before the compiled Mus engine
}
SKIPPED = 2  # generations of each evolve run left out: compiling and warming up
VALIDATE_GRID = [
    "seeds=3",
    "hands=[25,50,100,200]",
    "reference_hands=2000",
    "drift.runs=4",
    "match.games=20",
    "match.series=1",
]  # make run's


def _run(script: str, src: Path, workdir: Path, name: str, overrides: list[str]) -> str:
    """Run ``pipelines/<script>.py`` with ``src`` on the path; its MLflow store's URI."""
    store = f"sqlite:///{workdir / name}.db"
    env = {**os.environ, "PYTHONPATH": str(src), "RAY_USAGE_STATS_ENABLED": "0"}
    subprocess.run(
        [sys.executable, str(ROOT / "pipelines" / f"{script}.py"), "ray=embedded",
         "ray.num_cpus=2", f"tracking.uri={store}", f"tracking.artifact_root={workdir / name}-art",
         f"hydra.run.dir={workdir / name}-hydra", *overrides],
        cwd=workdir, env=env, check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    return store


def _only_run(store: str, experiment: str):
    from mlflow.tracking import MlflowClient

    client = MlflowClient(store)
    [run] = client.search_runs([client.get_experiment_by_name(experiment).experiment_id])
    return client, run


def generation_seconds(src: Path, workdir: Path, name: str, generations: int) -> list[float]:
    """Evolve at its defaults with ``src`` on the path; each generation's wall seconds."""
    store = _run("evolve", src, workdir, name,
                 [f"ga.generations={generations}", f"deals.root={workdir / 'deals'}",
                  f"checkpoint_root={workdir / name}-ck", "registry.register=false"])  # fmt: skip
    client, run = _only_run(store, "evolve")
    history = sorted(client.get_metric_history(run.info.run_id, "wall_s"), key=lambda m: m.step)
    return [m.value for m in history][SKIPPED:]


def cells_per_second(src: Path, workdir: Path, name: str) -> list[float]:
    """The validate grid of ``make run`` with ``src`` on the path: its cells per second."""
    store = _run("validate", src, workdir, name,
                 [*VALIDATE_GRID, f"output={workdir / name}-validate.parquet"])  # fmt: skip
    _, run = _only_run(store, "validate")
    return [run.data.metrics["cells"] / run.data.metrics["wall_s"]]


def main() -> None:
    args = parser(__doc__)
    args.add_argument("--pipeline", choices=sorted(BEFORE), default="evolve",
                      help="the pipeline to run (default evolve)")  # fmt: skip
    args.add_argument("--before", help="the earlier commit (default: the pipeline's, see BEFORE)")
    args.add_argument("--generations", type=int, default=12, help="evolve's generations a run (12)")
    args.add_argument("--rounds", type=int, default=2, help="runs of each side, in turn (2)")
    opts = args.parse_args()
    before_rev = opts.before or BEFORE[opts.pipeline]
    generations = 5 if opts.quick else opts.generations
    rounds = 1 if opts.quick else opts.rounds
    samples: dict[str, list[float]] = {"before": [], "after": []}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        tree = work / "before"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), before_rev],
            check=True, capture_output=True,
        )  # fmt: skip
        try:
            for r in range(rounds):
                for side, src in (("before", tree / "src"), ("after", ROOT / "src")):
                    name = f"{side}{r}"
                    if opts.pipeline == "evolve":
                        samples[side] += generation_seconds(src, work, name, generations)
                    else:
                        samples[side] += cells_per_second(src, work, name)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)])
    if opts.pipeline == "evolve":
        unit = "generations/min"
        before, after = (60 / statistics.median(samples[k]) for k in ("before", "after"))
        what = "evolve at its defaults"
        counted = f"{len(samples['after'])} generations"
    else:
        unit = "cells/s"
        before, after = (statistics.median(samples[k]) for k in ("before", "after"))
        what = "validate at make run's grid"
        counted = f"{len(samples['after'])} runs"
    note = f"{counted}, median; speed-up {after / before:.2f}x"
    key = unit.replace("/", "_per_")
    report(
        f"kernel effects: {what} (embedded Ray, 2 CPUs)",
        [(f"{unit}, before ({before_rev})", before, ""), (f"{unit}, this checkout", after, note)],
        {
            "pipeline": opts.pipeline,
            "before": before_rev,
            f"{key}_before": round(before, 2),
            f"{key}_after": round(after, 2),
            "ratio": round(after / before, 2),
            "quick": opts.quick,
        },
    )


if __name__ == "__main__":
    main()
