"""What a process costs before it does any work: a pipeline's driver, its workers, an MLflow
server.

    python benchmarks/process_cost.py            # six of each, alternating
    python benchmarks/process_cost.py --quick    # three

- **A driver, with and without the collector's tuning**: ``pipelines/equity.py trials=400`` on
  the warm shared local head (its work is a few tasks: the rest is imports, the MLflow store,
  the shutdown), its CPU (user + sys of the process and what it waited for). The baseline is
  the same driver with CPython's defaults put back (``gc.set_threshold(700, 10, 10)`` and the
  exit-time freeze unregistered) in the same process before the script runs.
- **A driver's workers, started by Ray's launcher or the lean one**: a tiny evolve
  (``EVOLVE``: three workers) on each of two local heads, one started with
  ``SPARRING_RAY_SETUP_WORKER=ray`` (Ray's ``setup_worker.py``, which imports Ray before it execs
  the worker), one with the default (``runtime.ray.lean_setup_worker``); the machine's busy
  CPU-seconds from the driver's start to 2 s after its end (its workers' too).
- **An MLflow server, with and without MLflow's job runner**: ``mlflow server --workers 1`` on a
  new sqlite store, the machine's busy CPU-seconds from its start to 20 s after it first
  answered ``/health``, and how many processes it made.

Both columns of each pair are measured alternately in the same run; medians. The figures as
JSON on the last line.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import busy_seconds, parser, report

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
EQUITY = str(ROOT / "pipelines" / "equity.py")
EVOLVE = [str(ROOT / "pipelines" / "evolve.py"), "ga.population=8", "ga.generations=2",
          "deals.train=30", "deals.heldout=60", "registry.register=false"]  # fmt: skip
DEFAULT_GC = (
    "import gc, atexit, runpy, sys; import sparring; gc.set_threshold(700, 10, 10); "
    "atexit.unregister(gc.freeze); sys.argv = sys.argv[1:]; "
    "runpy.run_path(sys.argv[0], run_name='__main__')"
)


def driver_cpu(argv: list[str], cwd: Path) -> float:
    """User + sys CPU-seconds of ``argv`` run to its end (it and the children it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, cwd=cwd, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def pipeline_cost(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    """The machine's busy CPU-seconds from ``argv``'s start to 2 s after its end."""
    start = busy_seconds()
    subprocess.run(argv, cwd=cwd, env=env, check=True, capture_output=True)
    time.sleep(2)  # its workers exit when the driver has gone
    return busy_seconds() - start


def server_cost(root: Path, jobs: bool) -> tuple[float, int]:
    """(busy CPU-seconds from start to 20 s after ready, processes of the server then)."""
    from sparring.runtime.net import free_port, stop_group, wait_for
    from sparring.runtime.processes import descendants
    from sparring.runtime.tracking.servers import server_argv

    root.mkdir(parents=True)
    port = free_port()
    env = {**os.environ, "MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "true" if jobs else "false"}
    start = busy_seconds()
    server = subprocess.Popen(
        server_argv(port, f"sqlite:///{root / 'server.db'}", root / "artifacts"),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_for(f"http://127.0.0.1:{port}/health", 240)
        time.sleep(20)
        return busy_seconds() - start, 1 + len(descendants(server.pid))
    finally:
        stop_group(server, grace_s=15)
        time.sleep(3)  # its children's exit, before the next measurement starts


def workers_cost(work: Path, repeats: int) -> dict[str, list[float]]:
    """``pipeline_cost`` of ``EVOLVE`` on a head of each launcher, alternately."""
    from sparring.runtime.ray import local_head

    envs = {
        launcher: {
            **os.environ,
            "SPARRING_RAY_HOME": str(work / f"head-{launcher}"),
            local_head.SETUP_WORKER_VAR: launcher,
        }
        for launcher in ("ray", "lean")
    }
    costs: dict[str, list[float]] = {launcher: [] for launcher in envs}
    try:
        for env in envs.values():  # each head started, the deals made
            subprocess.run([PY, *EVOLVE], cwd=work, env=env, check=True, capture_output=True)
        for _ in range(repeats):
            for launcher, env in envs.items():
                costs[launcher].append(pipeline_cost([PY, *EVOLVE], work, env))
    finally:
        for launcher in envs:
            local_head.stop(work / f"head-{launcher}")
    return costs


def main() -> None:
    args = parser(__doc__.split("\n", 1)[0]).parse_args()
    repeats = 3 if args.quick else 6
    tuned, default, with_jobs, without_jobs, procs = [], [], [], [], {}
    launched: dict[str, list[float]] = {"ray": [], "lean": []}
    with tempfile.TemporaryDirectory(prefix="sparring-process-cost-") as tmp:
        work = Path(tmp)
        driver_cpu([PY, EQUITY, "trials=400"], work)  # the head started, the store made
        for _ in range(repeats):
            tuned.append(driver_cpu([PY, EQUITY, "trials=400"], work))
            default.append(driver_cpu([PY, "-c", DEFAULT_GC, EQUITY, "trials=400"], work))
        launched = workers_cost(work, repeats)
        for i in range(max(2, repeats // 2)):
            cpu, procs[True] = server_cost(work / f"jobs-{i}", jobs=True)
            with_jobs.append(cpu)
            cpu, procs[False] = server_cost(work / f"nojobs-{i}", jobs=False)
            without_jobs.append(cpu)
    d, t = statistics.median(default), statistics.median(tuned)
    w, wo = statistics.median(with_jobs), statistics.median(without_jobs)
    lr, ll = statistics.median(launched["ray"]), statistics.median(launched["lean"])
    report(
        "process cost",
        [
            ("driver CPU-s, CPython's collector defaults", d, f"median of {repeats}"),
            ("driver CPU-s, tuned (runtime.collector)", t, f"{t / d:.2f}x of the defaults"),
            ("tiny evolve + workers CPU-s, Ray's setup_worker", lr, f"median of {repeats}"),
            ("tiny evolve + workers CPU-s, lean_setup_worker", ll, f"{ll / lr:.2f}x of Ray's"),
            ("MLflow server CPU-s, with its job runner", w, f"{procs[True]} processes"),
            ("MLflow server CPU-s, without", wo, f"{procs[False]} processes, {wo / w:.2f}x"),
        ],
        {
            "driver_cpu_default": d,
            "driver_cpu_tuned": t,
            "evolve_cpu_ray_setup_worker": lr,
            "evolve_cpu_lean_setup_worker": ll,
            "server_cpu_with_jobs": w,
            "server_cpu_without_jobs": wo,
            "server_processes": {"with_jobs": procs[True], "without": procs[False]},
        },
    )


if __name__ == "__main__":
    main()
