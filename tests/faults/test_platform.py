"""Faults of the platform around the data (issue #48), each injected through the real
component, as a user meets it: a real local Ray head killed -9, its Ray session directory or
its state directory removed, a driver with another HOME's Ray token. Each case checks the exit
status, that what the user reads is one line and no traceback, that nothing is lost, and that
the rerun gives what an undisturbed run gives. docs/operations/reliability.md names these tests.

Every test here has a head directory of its own (``SPARRING_RAY_HOME``): the session's head,
which the other tests share, is never the one harmed, except by the token check, which refuses
before connecting.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest
from mlflow.tracking import MlflowClient

from sparring.ga.checkpoint import load
from sparring.runtime.ray import local_head
from sparring.runtime.ray.health import EXIT_RAY_LOST
from tests.helpers.commands import (
    ROOT,
    holding,
    run_cli,
    run_pipeline,
    start_pipeline,
    wait_while_running,
)
from tests.helpers.configs import TINY_EVOLVE

GENERATIONS = 5
EVOLVE = (*TINY_EVOLVE, f"ga.generations={GENERATIONS}", "resume=true")


def _own_head(tmp_path: Path) -> dict[str, str]:
    """The environment of a driver whose head is this test's alone."""
    return {"SPARRING_RAY_HOME": str(tmp_path / "ray-home")}


def _head(env: dict[str, str]) -> dict:
    return json.loads((Path(env["SPARRING_RAY_HOME"]) / "head.json").read_text())


@contextlib.contextmanager
def _ending_the_head(env: dict[str, str]):
    """The test's own head, ended by its PID whatever happens."""
    try:
        yield
    finally:
        local_head.stop(Path(env["SPARRING_RAY_HOME"]))


def _one_line(err: str) -> str:
    """What the user reads at the end: one line, and no traceback anywhere."""
    assert "Traceback" not in err, err[-3000:]
    return err.strip().splitlines()[-1]


# What Ray's C++ logs as it ends a driver whose local raylet (and its object store) went with
# the head, when the driver's next touch of the object store comes before the head's watcher
# can act: exit 1, nothing on stderr. Seen on a loaded machine about one time in three; only a
# supervising parent process could say the line then (not built).
PLASMA_GONE = "The connection to the plasma store is failed. Terminate the process."


def _driver_log(head_pid: int, driver_pid: int) -> str:
    """The Ray core log of driver ``driver_pid`` in the session of head ``head_pid``."""
    logs = Path(tempfile.gettempdir(), "ray").glob(
        f"session_*_{head_pid}/logs/python-core-driver-*_{driver_pid}.log"
    )
    return "".join(path.read_text(errors="replace") for path in logs)


def _final_population(checkpoints: Path) -> np.ndarray:
    [run_dir] = checkpoints.iterdir()
    return load(run_dir / f"gen-{GENERATIONS:05d}.npz").population


def _evolve_in(root: Path) -> tuple[str, ...]:
    """The test's evolve with its deals, checkpoints and store under ``root``."""
    return (
        *EVOLVE,
        f"deals.root={root / 'deals'}",
        f"checkpoint_root={root / 'ck'}",
        f"tracking.uri=sqlite:///{root / 'mlflow.db'}",
    )


def test_a_head_killed_mid_run_is_one_line_and_the_rerun_resumes_to_the_same_result(tmp_path):
    env = _own_head(tmp_path)
    overrides = _evolve_in(tmp_path)
    with _ending_the_head(env):
        proc = start_pipeline(
            "evolve", *overrides, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        wait_while_running(
            proc, lambda: list((tmp_path / "ck").glob("*/gen-00002.npz")), "generation 2"
        )
        head = _head(env)
        os.kill(head["pid"], signal.SIGKILL)
        began = time.monotonic()
        _, err = proc.communicate(timeout=120)
        took = time.monotonic() - began
        client = MlflowClient(f"sqlite:///{tmp_path / 'mlflow.db'}")
        [run] = client.search_runs([client.get_experiment_by_name("evolve").experiment_id])
        raced = proc.returncode == 1 and not err.strip()
        if raced:  # the known race (module docstring of runtime.ray.health), named by Ray's log
            assert PLASMA_GONE in _driver_log(head["pid"], proc.pid), err[-3000:]
            assert run.info.status == "RUNNING"  # (the rerun below finds it orphaned)
        else:
            assert proc.returncode == EXIT_RAY_LOST, err[-3000:]
            assert _one_line(err) == (
                f"the local Ray head (pid {head['pid']}) ended during the run; run the same "
                "command again to resume"
            )
            assert run.info.status == "KILLED"
        assert took < 50, f"{took:.0f} s: Ray's own wait for its GCS is 60 s"

        again = run_pipeline("evolve", *overrides, cwd=tmp_path, env=env, timeout=600)
        assert again.returncode == 0, again.stderr[-3000:]
        assert "resuming from generation" in again.stdout + again.stderr  # checkpoints kept
        if raced:
            assert f"marked run {run.info.run_id} KILLED" in again.stdout + again.stderr
    undisturbed = tmp_path / "undisturbed"
    undisturbed.mkdir()
    whole = run_pipeline("evolve", *_evolve_in(undisturbed), cwd=undisturbed, timeout=600)
    assert whole.returncode == 0, whole.stderr[-3000:]
    assert np.array_equal(_final_population(tmp_path / "ck"), _final_population(undisturbed / "ck"))


def test_a_removed_ray_session_directory_is_one_line_and_the_next_run_gets_a_new_head(tmp_path):
    env = _own_head(tmp_path)
    overrides = (
        "deals=3000", "equity_trials=2000", "shard_size=50", f"output_root={tmp_path / 'deals'}",
        f"tracking.uri=sqlite:///{tmp_path / 'mlflow.db'}",
    )  # fmt: skip
    with _ending_the_head(env):
        started = run_cli("ray", "start", env=env)
        assert started.returncode == 0, started.stderr
        head = _head(env)
        [session] = Path("/tmp/ray").glob(f"session_*_{head['pid']}")
        proc = start_pipeline(
            "handgen", *overrides, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        wait_while_running(proc, lambda: list(tmp_path.glob("deals/*/part-*.parquet")), "a shard")
        shutil.rmtree(session)
        _, err = proc.communicate(timeout=120)
        # The head ends itself when its session directory goes; its raylet and object store go
        # with it, and a driver that touches the store first meets the known race of the test
        # above (exit 1 from Ray's C++; its log was in the removed directory): accepted only
        # when no line of ours was said and the head's own log names the removed directory.
        head_log = (Path(env["SPARRING_RAY_HOME"]) / "head.log").read_text()
        raced = proc.returncode == 1 and "session directory" not in err
        if raced:
            assert "Traceback" not in err, err[-3000:]
            assert f"its Ray session directory {session} was removed" in head_log, head_log
        else:
            assert proc.returncode == EXIT_RAY_LOST, err[-3000:]
            said = _one_line(err)
            assert said.startswith(f"Ray's session directory {session} was removed during the run")
            assert said.endswith("run the same command again to resume")
        gone = time.monotonic() + 30
        while local_head.alive(local_head.Head(**head)) and time.monotonic() < gone:
            time.sleep(0.2)
        assert not local_head.alive(local_head.Head(**head))  # a head that cannot work ends
        status = run_cli("ray", "status", env=env)
        assert status.stdout.startswith("no local Ray head runs"), status.stdout

        again = run_pipeline("handgen", *overrides, cwd=tmp_path, env=env, timeout=600)
        assert again.returncode == 0, again.stderr[-3000:]
        assert _head(env)["pid"] != head["pid"]


def test_a_removed_state_directory_neither_hides_the_head_nor_starts_a_second(tmp_path):
    env = _own_head(tmp_path)
    home = Path(env["SPARRING_RAY_HOME"])
    with _ending_the_head(env):
        assert run_cli("ray", "start", env=env).returncode == 0
        head = _head(env)
        shutil.rmtree(home)  # the head writes its file again within a second
        status = run_cli("ray", "status", env=env)
        assert status.stdout.startswith(f"local Ray head {head['pid']} at"), status.stdout
        assert run_cli("ray", "start", env=env).stdout.startswith(f"local Ray head {head['pid']}")

        shutil.rmtree(home)
        home.write_text("")  # where the state was is now a file: the head cannot write it
        time.sleep(2 * local_head.POLL_S)
        assert local_head.alive(local_head.Head(**head))  # (the head lives on regardless)
        status = run_cli("ray", "status", env=env)
        assert status.stdout.startswith(f"local Ray head {head['pid']} runs"), status.stdout
        stopped = run_cli("ray", "stop", env=env)
        assert stopped.stdout.startswith(f"stopped the local Ray head {head['pid']}")
        assert not local_head.alive(local_head.Head(**head))
        home.unlink()


@pytest.mark.parametrize("token", [None, "not-the-heads-token"])
def test_a_driver_with_another_homes_token_is_one_line_naming_both(ray_session, tmp_path, token):
    """The session's head runs with this user's token; a driver with another HOME has none, or
    another. The control: the same pipeline with the head's HOME joins (the whole suite)."""
    other = tmp_path / "home"
    (other / ".ray").mkdir(parents=True)
    if token:
        (other / ".ray" / "auth_token").write_text(token)
    head = local_head.read()
    assert head is not None and head.token  # the session's head records its token's print
    done = run_pipeline(
        "handgen", "deals=20", "equity_trials=20", f"output_root={tmp_path / 'deals'}",
        f"tracking.uri=sqlite:///{tmp_path / 'mlflow.db'}", cwd=tmp_path,
        env={"HOME": str(other)}, timeout=300,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr[-3000:]
    said = _one_line(done.stderr)
    have = "the Ray token at" if token else "no Ray token (none at"
    assert said.startswith(f"error: this process has {have} {other}/.ray/auth_token"), said
    assert f"local Ray head (pid {head.pid})" in said and head.token_from in said
    assert not (tmp_path / "deals").exists()  # refused before any work


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_a_contest_driver_killed_with_minus_9_leaves_no_agent_directory(tmp_path, sandbox):
    """An outside program's private home: a tmpfs inside the sandbox, a directory under $TMPDIR
    without it. The keeper removes the latter once the program's tree has ended, whoever ended
    it: here the arena's driver is killed with -9 mid-contest (it left empty
    ``/tmp/sparring-agent-*`` behind). The control: the directory existed while it played."""
    from sparring.runtime.programs import jail

    if sandbox == "bwrap" and jail.problem() is not None:
        pytest.skip(f"no sandbox here: {jail.problem()}")
    # short: Ray puts its sockets under $TMPDIR too (107 bytes at most)
    tmp = Path(tempfile.mkdtemp(prefix="sparring-faults-", dir="/tmp"))
    # the head's workers start the programs: they get TMPDIR from the head's environment
    env = {**_own_head(tmp_path), "TMPDIR": str(tmp), "SPARRING_SANDBOX": sandbox}
    slow = tmp_path / "slow_bot.py"
    slow.write_text(
        (ROOT / "examples" / "agents" / "random_bot.py")
        .read_text()
        .replace("import sys\n", "import sys\nimport time\n")
        .replace('"act":', '"act":\n        time.sleep(0.05)')
    )
    seen: set[str] = set()

    def playing() -> bool:
        seen.update(p.name for p in tmp.glob("sparring-agent-*"))
        return bool(list(tmp_path.rglob("blocks/*.json")))

    with contextlib.ExitStack() as cleanup:
        cleanup.callback(shutil.rmtree, tmp, ignore_errors=True)
        cleanup.enter_context(_ending_the_head(env))
        proc = start_pipeline(
            "arena", f"agent=cmd:{sys.executable} {slow}", "field=[first]", "units=40",
            "block=1", f"output_dir={tmp_path / 'arena'}",
            f"tracking.uri=sqlite:///{tmp_path / 'mlflow.db'}", cwd=tmp_path, env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            wait_while_running(proc, playing, "a block played")
        finally:
            proc.kill()
            proc.wait()
        if sandbox == "none":
            assert seen, "the unsandboxed program had no directory under TMPDIR"
        # the next contest finds a home whose starter is gone, and removes it
        again = run_pipeline(
            "arena", f"agent=cmd:{sys.executable} {slow}", "field=[first]", "units=2",
            f"output_dir={tmp_path / 'arena'}", f"tracking.uri=sqlite:///{tmp_path / 'mlflow.db'}",
            cwd=tmp_path, env=env, timeout=300,
        )  # fmt: skip
        assert again.returncode == 0, again.stderr[-3000:]
        assert not list(tmp.glob("sparring-agent-*"))


def test_a_store_another_process_holds_locked_is_one_line_from_a_pipeline(tmp_path):
    """``mlflow.db`` under another process's exclusive lock: a pipeline as a user runs it says
    so in one line after a bounded wait (it was 18 s, then 109 lines of 'database is locked');
    the control: once the lock is let go, the same command runs."""
    db = tmp_path / "mlflow.db"
    store = f"tracking.uri=sqlite:///{db}"
    assert run_pipeline("equity", "trials=10", store, cwd=tmp_path, timeout=300).returncode == 0
    holder = holding(
        "import sqlite3, time\n"
        f"c = sqlite3.connect({str(db)!r}, isolation_level=None)\n"
        "c.execute('BEGIN EXCLUSIVE'); print('held', flush=True); time.sleep(120)"
    )
    try:
        done = run_pipeline("equity", "trials=10", store, cwd=tmp_path, timeout=300)
    finally:
        holder.kill()
        holder.wait()
    assert done.returncode == 2, done.stderr[-3000:]
    [line] = done.stderr.strip().splitlines()
    assert f"{db} is locked by another process (waited 5 s)" in line, line
    again = run_pipeline("equity", "trials=10", store, cwd=tmp_path, timeout=300)
    assert again.returncode == 0, again.stderr[-3000:]


@pytest.mark.parametrize(
    "spec, says",
    [
        ("py:os:system", "a factory called with no arguments that makes one (os.system is not)"),
        ("py:collections:OrderedDict", "a class with act(observation, legal)"),
    ],
)
def test_an_agent_spec_naming_no_agent_is_one_line_from_the_arena(tmp_path, spec, says):
    """A spec naming a function or class that is no agent: one line at the config check, exit
    2 (it was a 108-line traceback), before any game."""
    done = run_pipeline(
        "arena", f"agent={spec}", "field=[first]", "units=2", f"output_dir={tmp_path / 'a'}",
        f"tracking.uri=sqlite:///{tmp_path / 'mlflow.db'}", cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr[-3000:]
    [line] = done.stderr.strip().splitlines()
    assert says in line and spec in line, line
    assert not (tmp_path / "a").exists()


HELD_DRIVER = """
import ctypes, subprocess, sys, time
from sparring.runtime import signals
from sparring.runtime.processes import process_start
from sparring.runtime.ray import health

health.GRACE_S = 1.0
signals.handle_termination()
head = subprocess.Popen(["sleep", "600"])  # stands for the local head
health.when_stuck(lambda lost: print("said:", lost.said, file=sys.stderr))
health.when_stuck(lambda lost: print("run marked KILLED", file=sys.stderr))
health.watch_head(head.pid, process_start(head.pid))
print(head.pid, flush=True)
if sys.argv[1] == "held":
    ctypes.CDLL(None).sleep(60)  # inside C code, as inside Ray's: no Python runs to stop it
else:
    while True:  # Python's own waiting (as parallel_map's polls of Ray): the stop reaches it
        time.sleep(0.05)
print("still running", flush=True)
"""


@pytest.mark.parametrize("main", ["held", "free"])
def test_a_driver_held_in_c_when_its_head_ends_is_ended_by_the_watcher(tmp_path, main):
    """The flake this fixes: evolve held inside Ray's C++ when its head was killed exited 1
    with no line (Ray's own end, its reason in a log file). The watcher gives the main thread
    ``GRACE_S`` (1 s here), then runs the ``when_stuck`` hooks (the run marked KILLED, the line
    said) and ends the process with EXIT_RAY_LOST itself. The control: a main thread that is
    free to stop does so, and the hooks never run."""
    proc = subprocess.Popen([sys.executable, "-c", HELD_DRIVER, main], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    head = int(proc.stdout.readline())
    began = time.monotonic()
    os.kill(head, signal.SIGKILL)
    out, err = proc.communicate(timeout=30)
    assert "still running" not in out and time.monotonic() - began < 20
    if main == "held":
        assert proc.returncode == EXIT_RAY_LOST, err
        assert err.splitlines() == [
            "run marked KILLED",  # the hook registered last runs first: the run, then the line
            f"said: the local Ray head (pid {head}) ended during the run",
        ]
    else:
        assert proc.returncode != EXIT_RAY_LOST and "said:" not in err, err
