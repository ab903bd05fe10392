"""How cost grows with the work: wall time and peak memory of three pipelines at three sizes.

    python benchmarks/scaling.py [--quick] [--plot benchmarks/scaling.png]

- handgen at 10^3, 10^4 and 10^5 deals;
- evolve at population 16, 64 and 256 (3 generations, 60 training deals, 150 held out);
- the league at 5, 10 and 20 entrants (the five baselines, then random champions registered
  as versions of a model of a store of its own).

Each run is the pipeline as a user runs it (``python pipelines/<name>.py``) on this machine's
shared local Ray head, started before the first run; the head's processes and the driver's are
sampled every 0.1 s and their summed RSS is the peak memory (the workers run in the head's
tree). The fixed cost of a run (imports, joining Ray, the MLflow run) is measured as the
smallest run of each pipeline (``base``) and subtracted before the exponent is fitted: the
slope of log(wall - base) on log(size) over the three sizes. A pipeline about linear in its
work has an exponent near 1; the league is quadratic in entrants by nature (every pair plays).
``--quick`` runs the two smaller sizes only. The figures as JSON on the last line.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import parser, report

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
GA = ["ga.generations=3", "deals.train=60", "deals.heldout=150", "registry.register=false"]


def rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree(pid: int) -> set[int]:
    from sparring.runtime.processes import descendants

    return {pid, *descendants(pid)}


def measure(args: list[str], cwd: Path, env: dict[str, str], head_pid: int) -> tuple[float, float]:
    """Wall seconds and peak MiB (driver tree + head tree) of ``python <args>``."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [PY, *args], cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    peak = 0
    while proc.poll() is None:
        pids = tree(proc.pid) | tree(head_pid)
        peak = max(peak, sum(rss_kb(p) for p in pids))
        time.sleep(0.1)
    wall = time.perf_counter() - start
    err = proc.stderr.read() if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args[:2])} failed ({proc.returncode}): {err[-1500:]}")
    return wall, peak / 1024


def register_entrants(uri: str, count: int, seed: int) -> None:
    """``count`` random champions registered as versions of the default model."""
    import numpy as np
    from mlflow.tracking import MlflowClient

    from sparring.champions.registry import log_champion, register
    from sparring.ga.operators import random_population

    client = MlflowClient(uri)
    exp = client.get_experiment_by_name("evolve")
    exp_id = exp.experiment_id if exp else client.create_experiment("evolve")
    rng = np.random.default_rng(seed)
    for chromosome in random_population(count, rng):
        run = client.create_run(exp_id, tags={"pipeline": "evolve"})
        log_champion(client, run.info.run_id, chromosome, {"table_size": 10})
        client.set_terminated(run.info.run_id)
        register(client, "sparring-holdem-champion", run.info.run_id, None)


def fit(sizes: list[int], walls: list[float], base: float) -> float:
    """Least-squares slope of log(wall - base) on log(size)."""
    xs = [math.log(s) for s in sizes]
    ys = [math.log(max(w - base, 1e-3)) for w in walls]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )


def main() -> None:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--plot", type=Path, help="write the wall and memory plot here")
    args = p.parse_args()
    grids = {
        "handgen": ([10, 1_000, 10_000, 100_000], "deals"),
        "evolve": ([8, 16, 64, 256], "population"),
        "league": ([2, 5, 10, 20], "entrants"),
    }
    if args.quick:
        grids = {k: (sizes[:3], what) for k, (sizes, what) in grids.items()}
    rows, figures, curves = [], {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
        env["SPARRING_RAY_HOME"] = str(where / "ray")
        uri = f"sqlite:///{where / 'mlflow.db'}"
        from sparring.runtime.ray import local_head

        head = local_head.ensure(where=where / "ray")
        try:
            registered = 0
            for name, (sizes, what) in grids.items():
                walls, peaks = [], []
                # the first run (unrecorded) compiles kernels and makes the deal sets
                for i, size in enumerate([sizes[0], *sizes]):
                    warm = i == 0
                    run_dir = where / (name if warm else f"{name}-{size}")
                    run_dir.mkdir()
                    store = [f"tracking.uri={uri}"]
                    if name == "handgen":
                        argv = [f"deals={size}", "seed=1", f"output_root={run_dir}/deals"]
                    elif name == "evolve":
                        argv = [
                            f"ga.population={size}",
                            *GA,
                            f"deals.root={where}/deals",
                            f"checkpoint_root={run_dir}/ck",
                        ]
                    else:
                        versions = max(size - 5, 0)
                        register_entrants(uri, versions - registered, seed=size)
                        registered = max(registered, versions)
                        baselines = (
                            "[calling_station,maniac]"
                            if size < 5
                            else ("[calling_station,maniac,random,tight_aggressive,mixed]")
                        )
                        argv = [
                            "deals.heldout=150",
                            "league.bootstrap=50",
                            f"league.baselines={baselines}",
                            f"league.registry={str(size > 5).lower()}",
                            f"league.cache_dir={run_dir}/cache",
                            f"deals.root={where}/deals",
                            "league.tag_versions=false",
                        ]
                    wall, peak = measure(
                        [str(ROOT / "pipelines" / f"{name}.py"), *argv, *store],
                        run_dir,
                        env,
                        head.pid,
                    )
                    if warm:
                        continue
                    walls.append(wall)
                    peaks.append(peak)
                    rows.append((f"{name} {what}={size}", wall, f"s wall, peak {peak:,.0f} MiB"))
                base, sizes_fit, walls_fit = walls[0], sizes[1:], walls[1:]
                exponent = fit(sizes_fit, walls_fit, base)
                rows.append(
                    (
                        f"{name}: exponent of (wall - base) in {what}",
                        exponent,
                        f"(base {base:.1f} s: the {what}={sizes[0]} run)",
                    )
                )
                figures[name] = {
                    "sizes": sizes,
                    "wall_s": [round(w, 2) for w in walls],
                    "peak_mib": [round(m) for m in peaks],
                    "exponent": round(exponent, 2),
                }
                curves[name] = (sizes, walls, peaks, what)
        finally:
            local_head.stop(where / "ray")
    if args.plot:
        plot(curves, args.plot)
        rows.append((f"plot: {args.plot}", 0, ""))
    report("scaling", rows, figures)


def plot(curves: dict, path: Path) -> None:
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, len(curves), figsize=(4 * len(curves), 6.5))
    for col, (name, (sizes, walls, peaks, what)) in enumerate(curves.items()):
        for row, (values, label) in enumerate(((walls, "wall (s)"), (peaks, "peak RSS (MiB)"))):
            ax = axes[row][col]
            ax.plot(sizes, values, "o-")
            ax.set_xscale("log")
            ax.set_xticks(sizes, [f"{s:,}" for s in sizes])  # the sizes run, not log decades
            ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
            ax.set_ylim(0, max(values) * 1.1)  # from zero: a flat memory curve looks flat
            ax.set_xlabel(what)
            ax.set_ylabel(label)
            if row == 0:
                ax.set_title(name)
            ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
