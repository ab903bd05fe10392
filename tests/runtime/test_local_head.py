"""The machine's shared local Ray head: six pipelines at once, stale heads, `sparring ray stop`.

Each test here has a head directory of its own (never the session's head, which the other
tests share), and ends what it started by PID.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
from mlflow.tracking import MlflowClient

from sparring.runtime.processes import descendants
from sparring.runtime.ray import local_head
from tests.helpers.commands import run_cli, start_pipeline


def _env(home: Path, **more: str) -> dict[str, str]:
    return {**os.environ, "SPARRING_RAY_HOME": str(home), **more}


def _tree_alive(pids: set[int]) -> set[int]:
    return {pid for pid in pids if Path(f"/proc/{pid}").exists() and not _zombie(pid)}


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def _wait_gone(pids: set[int], timeout_s: float = 60.0) -> set[int]:
    deadline = time.monotonic() + timeout_s
    while _tree_alive(pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    return _tree_alive(pids)


def _equity(seed: int, tmp_path: Path, home: Path, *extra: str, to: str = "") -> subprocess.Popen:
    out = tmp_path / (to or f"equity-{seed}")
    out.mkdir()
    return start_pipeline(
        "equity",
        "trials=300",
        f"seed={seed}",
        f"output={out / 'preflop.parquet'}",
        f"tracking.uri=sqlite:///{tmp_path / 'mlflow.db'}",
        *extra,
        cwd=out,
        env=_env(home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_six_pipelines_started_together_share_one_head_and_all_record_their_runs(tmp_path):
    """Six equity pipelines at the same moment on one new sqlite store: one head is started
    (under the lock), all six join it, finish and record a run each; the tables equal the
    ones an embedded Ray makes for the same seeds."""
    home = tmp_path / "head"
    procs = [_equity(seed, tmp_path, home) for seed in range(1, 7)]
    try:
        errors = [p.communicate(timeout=600)[1] for p in procs]
        assert [p.returncode for p in procs] == [0] * 6, [e[-1500:] for e in errors]
        head = local_head.read(home)
        assert head is not None and local_head.alive(head)
        assert (home / "head.log").read_text().count("local Ray head") == 1  # one start
        client = MlflowClient(f"sqlite:///{tmp_path / 'mlflow.db'}")
        runs = client.search_runs([e.experiment_id for e in client.search_experiments()])
        assert sorted(int(r.data.params["seed"]) for r in runs) == [1, 2, 3, 4, 5, 6]
        assert all(r.info.status == "FINISHED" for r in runs)
    finally:
        local_head.stop(home)
    embedded = _equity(3, tmp_path, home, "ray=embedded", to="embedded")
    assert embedded.communicate(timeout=600)[0] is None and embedded.returncode == 0
    assert local_head.read(home) is None  # the embedded run started no head
    shared = pq.read_table(tmp_path / "equity-3" / "preflop.parquet")
    assert shared.equals(pq.read_table(tmp_path / "embedded" / "preflop.parquet"))


def test_a_head_killed_with_sigkill_is_detected_and_replaced(tmp_path):
    """Every process of a head killed with SIGKILL: its file stays behind, pointing at a dead
    PID and a closed port; the next driver starts a new head, and work runs on it."""
    home = tmp_path / "head"
    old = local_head.ensure(where=home)
    try:
        tree = {old.pid, *descendants(old.pid)}
        assert len(tree) > 3  # the head, its GCS, raylet, agents
        for pid in tree:
            # the head's reaper ends the rest of the tree once the head is gone: a process may
            # be dead already when its turn comes
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        assert not _wait_gone(tree, 30)
        assert local_head.read(home) == old and not local_head.alive(old)
        new = local_head.ensure(where=home)
        assert new.pid != old.pid and local_head.alive(new)
        probe = subprocess.run(
            [
                sys.executable,
                "-c",
                "import ray; from sparring.runtime.ray.session import init_ray; init_ray({}); "
                "print(ray.get(ray.remote(lambda: 6 * 7).remote()))",
            ],
            env=_env(home),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert probe.stdout.strip().splitlines()[-1] == "42", probe.stderr[-2000:]
        assert local_head.read(home) == new  # the probe joined it, no third head
    finally:
        local_head.stop(home)


def test_sparring_ray_stop_ends_only_sparrings_head(tmp_path):
    """Another Ray on the machine (an embedded one of a plain script) and Sparring's head:
    `sparring ray stop` ends the head and every process of it, the other Ray keeps running;
    a second stop says there is none."""
    home = tmp_path / "head"
    other = subprocess.Popen(
        [
            sys.executable,
            "-c",
            'import ray, time; ray.init(address="local", num_cpus=1, include_dashboard=False); '
            "print('up', flush=True); time.sleep(600)",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"},
        start_new_session=True,
    )
    try:
        assert other.stdout.readline().strip() == "up"
        others = {other.pid, *descendants(other.pid)}
        head = local_head.ensure(where=home)
        tree = {head.pid, *descendants(head.pid)}
        status = run_cli("ray", "status", env=_env(home))
        assert f"local Ray head {head.pid} at {head.address}" in status.stdout
        stop = run_cli("ray", "stop", env=_env(home))
        assert stop.returncode == 0 and f"stopped the local Ray head {head.pid}" in stop.stdout
        assert not _wait_gone(tree)
        assert _tree_alive(others) == others  # the other Ray is untouched
        again = run_cli("ray", "stop", env=_env(home))
        assert again.returncode == 0 and "no local Ray head was running" in again.stdout
    finally:
        os.killpg(other.pid, signal.SIGTERM)
        other.wait(timeout=60)
        local_head.stop(home)


def test_an_idle_head_ends_itself_and_removes_its_file(tmp_path, monkeypatch):
    """With SPARRING_RAY_IDLE_S=2 a head that no driver joins ends within seconds, its Ray
    processes with it, and leaves no head file for the next driver to trip on."""
    monkeypatch.setenv("SPARRING_RAY_IDLE_S", "2")
    home = tmp_path / "head"
    head = local_head.ensure(where=home)
    tree = {head.pid, *descendants(head.pid)}
    assert not _wait_gone(tree, 90)
    assert local_head.read(home) is None
    assert "stopping: idle for 2 s" in (home / "head.log").read_text()


LEAK_PROBE = (
    "import os, ray; from sparring.runtime.ray.session import init_ray; init_ray({}); "
    "print(ray.get(ray.remote(lambda: os.environ.get('SPARRING_SWEEP_ID', '-')).remote()))"
)


def test_the_variables_of_the_driver_that_started_the_head_reach_no_later_driver(tmp_path):
    """A head started by a sweep's driver (its sweep id in the environment): the tasks of a
    later driver without one do not see it (a search after a sweep had its trials tagged with
    that sweep's id); a driver that sets its own gets its own."""
    home = tmp_path / "head"
    try:
        seen = []
        for sweep_id in ("the-first-sweep", None, "another"):
            env = _env(home)
            env.pop("SPARRING_SWEEP_ID", None)
            if sweep_id:
                env["SPARRING_SWEEP_ID"] = sweep_id
            probe = subprocess.run(
                [sys.executable, "-c", LEAK_PROBE],
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert probe.returncode == 0, probe.stderr[-2000:]
            seen.append(probe.stdout.strip().splitlines()[-1])
        assert seen == ["the-first-sweep", "-", "another"]
        assert (home / "head.log").read_text().count("local Ray head") == 1  # one head for all
    finally:
        local_head.stop(home)


PATH_PROBE = (
    "import os, shutil, ray; from sparring.runtime.ray.session import init_ray; init_ray({}); "
    "print(ray.get(ray.remote(lambda: shutil.which('sh') or '-').remote()))"
)


def test_a_head_started_with_a_bare_path_gives_later_drivers_workers_their_own(tmp_path):
    """A head started by a driver whose PATH is only the venv (cron's, a test's): a later
    driver's workers look programs up on that driver's PATH (the arena's `sh`, `bwrap`:
    'sh: no such program' in every later contest before). The control: the first driver's own
    workers do not find `sh`."""
    home = tmp_path / "head"
    try:
        seen = []
        for path in (str(Path(sys.executable).parent), os.environ["PATH"]):
            probe = subprocess.run(
                [sys.executable, "-c", PATH_PROBE], env=_env(home, PATH=path),
                capture_output=True, text=True, timeout=300,
            )  # fmt: skip
            assert probe.returncode == 0, probe.stderr[-2000:]
            seen.append(probe.stdout.strip().splitlines()[-1])
        assert seen[0] == "-" and seen[1].endswith("/sh"), seen
        assert (home / "head.log").read_text().count("local Ray head") == 1  # one head for both
    finally:
        local_head.stop(home)


def test_a_head_lock_held_too_long_is_one_line_naming_its_holder(tmp_path, monkeypatch, capsys):
    """``head.lock`` held by a live process: said once after a few seconds, then one line with
    the holder's pid (it used to wait forever without a word); once released, taken."""
    import pytest

    from sparring.runtime.ray import local_head
    from tests.helpers.commands import holding

    holder = holding(
        "import fcntl, time\n"
        f"f = open({str(tmp_path / 'head.lock')!r}, 'a+'); fcntl.flock(f, fcntl.LOCK_EX)\n"
        "print('held', flush=True); time.sleep(60)"
    )
    try:
        monkeypatch.setattr(local_head, "LOCK_SAY_S", 0.2)
        with pytest.raises(local_head.HeadError) as refused, local_head._locked(tmp_path, 1.0):
            pass
        said = str(refused.value)
        assert f"held by process {holder.pid} for 1 s" in said and "\n" not in said
        assert f"process {holder.pid} holds it" in capsys.readouterr().err
    finally:
        holder.kill()
        holder.wait()
    with local_head._locked(tmp_path, 1.0):  # the control: free, it is taken at once
        pass
