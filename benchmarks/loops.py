"""How long a user waits: bad input, --help, six pipelines at once, `make run` step by step.

    python benchmarks/loops.py                       # this checkout
    python benchmarks/loops.py --before 00244c1      # and the same figures of an older commit
    python benchmarks/loops.py --make-run            # also a fresh clone's `make run`, per step

- **Errors**: five bad inputs as a user types them, each to its one-line error (exit 2), and
  `--help` of `sparring tune` and of a pipeline: wall seconds each, median of ``--repeats``.
- **Six at once**: six ``pipelines/equity.py`` with different seeds started at the same moment
  on one new sqlite store: how many finish, how many runs the store holds, the wall of all six.
- **make run**: a fresh clone of HEAD (``git clone``, its own ``.venv`` from the uv cache), then
  every command of the Makefile's ``run`` recipe (``make -n run``) timed on its own.

``--before <commit>`` measures the first two on a worktree of that commit with this checkout's
``.venv`` (its ``src/`` first on ``PYTHONPATH``), so both columns come from the same machine
in the same run. The figures as JSON on the last line.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import parser, report

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable

BAD_INPUTS = {
    "evolve ga.population=0": ["pipelines/evolve.py", "ga.population=0"],
    "equity tirals=10 (a typo'd key)": ["pipelines/equity.py", "tirals=10"],
    "handgen ray=bogus": ["pipelines/handgen.py", "ray=bogus"],
    "compare metric=champion_bb10 (no such metric)": [
        "pipelines/compare.py",
        "experiment=evolve",
        "metric=champion_bb10",
    ],
    "retrain history --last 0": ["-m", "sparring.cli", "retrain", "history", "--last", "0"],
}
HELP = {
    "sparring tune --help": ["-m", "sparring.cli", "tune", "--help"],
    "evolve --help": ["pipelines/evolve.py", "--help"],
}


def _env(code: Path, home: Path) -> dict[str, str]:
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "SPARRING_RAY_HOME": str(home)}
    env["PYTHONPATH"] = os.pathsep.join([str(code / "src"), str(code)])
    return env


def timed(args: list[str], code: Path, cwd: Path, home: Path) -> tuple[float, int, str]:
    """Wall seconds, exit status and the last stderr line of ``python <args>`` in ``code``."""
    args = [str(code / a) if a.startswith("pipelines/") else a for a in args]
    start = time.perf_counter()
    done = subprocess.run(
        [PY, *args], cwd=cwd, env=_env(code, home), capture_output=True, text=True, timeout=600
    )
    wall = time.perf_counter() - start
    lines = done.stderr.strip().splitlines() or done.stdout.strip().splitlines() or [""]
    return wall, done.returncode, lines[-1][:100]


def latencies(code: Path, repeats: int) -> dict[str, tuple[float, int, str]]:
    """Median wall of every bad input and --help, each run in a fresh directory with a store
    that has one evolve experiment (so compare's metric check has something to check)."""
    found = {}
    with tempfile.TemporaryDirectory() as tmp:
        where, home = Path(tmp), Path(tmp) / "ray"
        _store_with_an_evolve_run(where / "mlflow.db")
        for name, args in {**BAD_INPUTS, **HELP}.items():
            walls, status, line = [], 0, ""
            for _ in range(repeats):
                wall, status, line = timed(args, code, where, home)
                walls.append(wall)
            found[name] = (statistics.median(walls), status, line)
    return found


def _store_with_an_evolve_run(db: Path) -> None:
    """``db``: an MLflow store whose evolve experiment has one run with ``champion_bb100``, so
    a misspelt metric is what compare refuses (not a missing store or experiment)."""
    from mlflow.tracking import MlflowClient

    client = MlflowClient(f"sqlite:///{db}")
    run = client.create_run(client.create_experiment("evolve"))
    client.log_metric(run.info.run_id, "champion_bb100", 1.0)
    client.set_terminated(run.info.run_id)


def six_at_once(code: Path) -> dict[str, float]:
    """Six equity pipelines started together on a new store: finished, runs, wall."""
    with tempfile.TemporaryDirectory() as tmp:
        where, home = Path(tmp), Path(tmp) / "ray"
        start = time.perf_counter()
        procs = []
        for seed in range(1, 7):
            out = where / f"s{seed}"
            out.mkdir()
            procs.append(
                subprocess.Popen(
                    [
                        PY,
                        str(code / "pipelines" / "equity.py"),
                        "trials=2000",
                        f"seed={seed}",
                        f"tracking.uri=sqlite:///{where / 'mlflow.db'}",
                    ],
                    cwd=out,
                    env=_env(code, home),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
        errors = [p.communicate(timeout=1200)[1] for p in procs]
        wall = time.perf_counter() - start
        finished = sum(p.returncode == 0 for p in procs)
        runs = _runs(where / "mlflow.db")
        _stop_head(code, home)
        for p, err in zip(procs, errors, strict=True):
            if p.returncode:
                print(f"  a pipeline failed ({p.returncode}): {err.strip().splitlines()[-1:]}")
    return {"finished": finished, "runs": runs, "wall_s": wall}


def _runs(db: Path) -> int:
    import sqlite3

    if not db.exists():
        return 0
    with sqlite3.connect(db) as con:
        try:
            return con.execute("select count(*) from runs where status = 'FINISHED'").fetchone()[0]
        except sqlite3.OperationalError:
            return 0


def _stop_head(code: Path, home: Path) -> None:
    if (code / "src" / "sparring" / "runtime" / "local_head.py").exists():
        subprocess.run(
            [PY, "-m", "sparring.cli", "ray", "stop"],
            env=_env(code, home),
            capture_output=True,
            timeout=120,
        )


def make_run() -> list[tuple[str, float]]:
    """A fresh clone of HEAD; `make setup`, then every command of `make run`, timed."""
    steps = []
    with tempfile.TemporaryDirectory() as tmp:
        clone = Path(tmp) / "p"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        env = {**os.environ, "SPARRING_RAY_HOME": str(Path(tmp) / "ray")}
        start = time.perf_counter()
        subprocess.run(["make", "setup"], cwd=clone, env=env, check=True, capture_output=True)
        steps.append(("make setup", time.perf_counter() - start))
        listed = subprocess.run(
            ["make", "-n", "run"], cwd=clone, env=env, check=True, capture_output=True, text=True
        ).stdout
        commands = [c for c in listed.replace("\\\n", " ").splitlines() if c.strip()]
        for command in commands:
            if command.startswith(("echo", "make")) or "uv sync" in command:
                continue
            start = time.perf_counter()
            done = subprocess.run(
                ["bash", "-c", command], cwd=clone, env=env, capture_output=True, text=True
            )
            wall = time.perf_counter() - start
            label = _label(command)
            if done.returncode not in (0, 10):
                label += f" (exit {done.returncode})"
            steps.append((label, wall))
        subprocess.run(
            [str(clone / ".venv" / "bin" / "python"), "-m", "sparring.cli", "ray", "stop"],
            cwd=clone,
            env=env,
            capture_output=True,
        )
    return steps


def _label(command: str) -> str:
    """A short name for a recipe line: the script or the subcommand."""
    words = command.replace("$(", " ").split()
    if "-m" in words and "sparring.cli" in words:
        i = words.index("sparring.cli")
        return "sparring " + " ".join(w for w in words[i + 1 : i + 3] if not w.startswith("-"))
    for word in words:
        if word.startswith("pipelines/"):
            return word.removeprefix("pipelines/")
    return command[:40]


def worktree(commit: str) -> Path:
    where = Path(tempfile.mkdtemp(prefix="loops-before-"))
    subprocess.run(
        ["git", "worktree", "add", "-q", "--detach", str(where), commit], cwd=ROOT, check=True
    )
    return where


def main() -> None:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--before", help="also measure this commit (a worktree of it)")
    p.add_argument("--make-run", action="store_true", help="also time a fresh clone's make run")
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    repeats = 1 if args.quick else args.repeats
    codes = {"now": ROOT}
    if args.before:
        codes = {"before": worktree(args.before), **codes}
    rows, figures = [], {}
    try:
        for label, code in codes.items():
            for name, (wall, status, line) in latencies(code, repeats).items():
                rows.append((f"{label}: {name}", wall, f"s, exit {status}: {line}"))
                figures[f"{label}/{name}"] = round(wall, 2)
            together = six_at_once(code)
            rows.append(
                (
                    f"{label}: six equity pipelines at once",
                    together["wall_s"],
                    f"s, {together['finished']}/6 finished, {together['runs']} runs",
                )
            )
            figures[f"{label}/six_at_once"] = together
    finally:
        if "before" in codes:
            subprocess.run(["git", "worktree", "remove", "--force", str(codes["before"])], cwd=ROOT)
            shutil.rmtree(codes["before"], ignore_errors=True)
    if args.make_run:
        steps = make_run()
        total = sum(wall for _, wall in steps)
        for name, wall in steps:
            rows.append((f"make run: {name}", wall, "s"))
        rows.append(("make run: total", total, "s"))
        figures["make_run"] = {name: round(wall, 1) for name, wall in steps}
        figures["make_run_total_s"] = round(total, 1)
    report("loops", rows, figures)


if __name__ == "__main__":
    main()
