"""Hyperparameter search: TPE against random search and the grid, and trials at once.

    python benchmarks/tune.py [--seeds 0 1 2] [--trials 24] [--generations 20]

Search quality: the GA preset (``conf/hparams_search/ga_tpe.yaml``: seven keys of evolve, maximise
the held-out champion's bb/100 against the mixed table, ASHA on) with each trial's evolution cut to
``--generations``, run as a user runs it (``python pipelines/tune.py``), at an equal budget of
``--trials`` trials per search: TPE and random search for every seed, the grid (its 24 points;
it has no randomness, so once). Per search: the best objective found and the trials it took to
reach a target (the median of every search's best). Concurrency: the same 16 grid trials without
early stopping at concurrency 1 and 2, in trials per hour between the parent run's start and
end, with how busy the machine was meanwhile: a search that keeps a fraction u of the cores busy
one trial at a time can be sped up at most 1/u by running more at once (the same CPU-seconds
cannot take less than CPU-seconds / cores), so that ceiling is printed beside the speed-up. The
figures as JSON on the last line.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import busy_seconds, parser, report
from mlflow.tracking import MlflowClient

ROOT = Path(__file__).resolve().parent.parent
OBJECTIVE = "champion_bb100_vs_mixed"

PRESET = """
defaults:
  - ga_tpe
  - _self_
name: ga_bench
fixed:
  ga.generations: {generations}
"""

CONCURRENCY = """
defaults:
  - ga_tpe
  - _self_
name: ga_concurrency
algorithm: grid
space:     # 2 x 2 x 2 x 2 = 16 trials; population fixed so every trial costs the same
  ga.crossover_policy: {{grid: [cycle, random]}}
  ga.population: {{grid: [32]}}
fixed:
  ga.generations: {generations}
  ga.chunks: {chunks}
scheduler:
  asha: false
"""


def search(root: Path, args: list[str]) -> tuple[list[dict], float, float]:
    """Run one search; returns its trials (number, objective, state), the parent's wall and the
    fraction of the machine's cores busy while it ran."""
    uri = f"sqlite:///{root / 'mlflow.db'}"
    search_id = next(a.split("=", 1)[1] for a in args if a.startswith("search_id="))
    busy_before, start = busy_seconds(), time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "pipelines" / "tune.py"),
            f"hydra.searchpath=[file://{root / 'conf'}]",
            f"tracking.uri={uri}",
            f"storage={root / 'tune'}",
            f"best_dir={root / 'best'}",
            *args,
        ],
        capture_output=True,
        text=True,
        cwd=root,
    )
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-3000:])
    busy = (busy_seconds() - busy_before) / ((os.cpu_count() or 1) * (time.perf_counter() - start))
    client = MlflowClient(uri)
    exp = client.get_experiment_by_name("evolve").experiment_id
    runs = client.search_runs([exp], f"tags.sweep_id = '{search_id}'", max_results=1000)
    parent = next(r for r in runs if r.data.tags.get("sweep_parent") == "true")
    trials = [
        {
            "number": int(r.data.tags["trial_number"]),
            "objective": r.data.metrics.get(OBJECTIVE),
            "state": r.data.tags.get("trial_state", r.info.status),
        }
        for r in runs
        if "trial_number" in r.data.tags
    ]
    wall = (parent.info.end_time - parent.info.start_time) / 1000
    return sorted(trials, key=lambda t: t["number"]), wall, busy


def trials_to(trials: list[dict], target: float) -> int | None:
    """The trial number at which a finished trial first reached ``target``."""
    for t in trials:
        if t["state"] == "finished" and t["objective"] is not None and t["objective"] >= target:
            return t["number"]
    return None


def main() -> None:
    p = parser(__doc__.split("\n")[0])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--trials", type=int, default=24)
    p.add_argument("--generations", type=int, default=10)
    p.add_argument("--skip-quality", action="store_true")
    p.add_argument(
        "--chunks", default="null", help="ga.chunks of the concurrency trials (null = 2 per CPU)"
    )
    args = p.parse_args()
    root = Path(tempfile.mkdtemp(prefix="tune-bench-"))
    (root / "conf" / "hparams_search").mkdir(parents=True)
    (root / "conf" / "hparams_search" / "ga_bench.yaml").write_text(
        PRESET.format(generations=args.generations)
    )
    (root / "conf" / "hparams_search" / "ga_concurrency.yaml").write_text(
        CONCURRENCY.format(generations=args.generations, chunks=args.chunks)
    )
    print(f"working in {root}", flush=True)
    figures: dict = {
        "trials": args.trials,
        "generations": args.generations,
        "chunks": args.chunks,
        "searches": {},
    }
    rows: list[tuple[str, float, str]] = []
    if not args.skip_quality:
        plan = [("grid", None)] + [(a, s) for s in args.seeds for a in ("tpe", "random")]
        for algorithm, seed in plan:
            name = f"{algorithm}-{seed}" if seed is not None else "grid"
            start = time.perf_counter()
            trials, wall, _ = search(
                root,
                [
                    "hparams_search=ga_bench",
                    f"hparams_search.algorithm={algorithm}",
                    f"trials={args.trials}",
                    f"seed={seed or 0}",
                    f"search_id={name}",
                ],
            )
            done = [t["objective"] for t in trials if t["state"] == "finished" and t["objective"]]
            figures["searches"][name] = {
                "algorithm": algorithm,
                "seed": seed,
                "trials": trials,
                "best": max(done) if done else None,
                "stopped": sum(1 for t in trials if t["state"] == "stopped"),
                "wall_s": wall,
            }
            print(
                f"{name}: best {max(done):+.1f} over {len(trials)} trials "
                f"({figures['searches'][name]['stopped']} stopped) in "
                f"{time.perf_counter() - start:.0f} s",
                flush=True,
            )
        bests = [s["best"] for s in figures["searches"].values() if s["best"] is not None]
        target = statistics.median(bests)
        figures["target"] = target
        for algorithm in ("tpe", "random", "grid"):
            runs = [s for s in figures["searches"].values() if s["algorithm"] == algorithm]
            best = statistics.mean(s["best"] for s in runs)
            reached = [trials_to(s["trials"], target) for s in runs]
            for s, n in zip(runs, reached, strict=True):
                s["trials_to_target"] = n
            got = [n for n in reached if n is not None]
            note = f"reached target {target:+.1f} in {len(got)}/{len(runs)} searches"
            if got:
                note += f", after {statistics.mean(got):.1f} trials on average"
            rows.append((f"{algorithm}: mean best {OBJECTIVE}", best, note))
    walls, busy = {}, {}
    for concurrency in (1, 2):
        name = f"concurrency-{concurrency}"
        trials, wall, busy[concurrency] = search(
            root,
            [
                "hparams_search=ga_concurrency",
                f"concurrency={concurrency}",
                f"search_id={name}",
            ],
        )
        walls[concurrency] = wall
        figures[f"trials_per_hour_c{concurrency}"] = 3600 * len(trials) / wall
        figures[f"machine_busy_c{concurrency}"] = busy[concurrency]
        rows.append(
            (
                f"trials/hour at concurrency {concurrency}",
                3600 * len(trials) / wall,
                f"{wall:.0f} s, the machine {busy[concurrency]:.0%} busy",
            )
        )
        print(f"{name}: {len(trials)} trials in {wall:.0f} s", flush=True)
    speedup = walls[1] / walls[2]
    figures["concurrency_speedup"] = speedup
    figures["speedup_ceiling"] = 1 / busy[1]
    rows.append(("speed-up 2 vs 1 at once", speedup, "goal >= 1.7"))
    rows.append(
        ("its ceiling: 1 / busy at 1", 1 / busy[1], "what the idle cores of concurrency 1 allow")
    )
    report("tune", rows, figures)


if __name__ == "__main__":
    main()
