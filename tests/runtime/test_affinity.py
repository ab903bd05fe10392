"""A referee and its programs share one core, one referee a core: a program runs where its
referee runs, the referee's cores come back after its last program, a second referee takes
another core (or none), and a referee killed with -9 frees its core."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from sparring.runtime.programs import affinity
from sparring.runtime.programs.program import Limits, Program

CORES = sorted(os.sched_getaffinity(0))
pytestmark = pytest.mark.skipif(len(CORES) < 2, reason="one core: nothing to share")

HOLDER = """
import sys, time
from sparring.runtime.programs import affinity
print(affinity.share_core(), flush=True)
time.sleep(600)
"""


def allowed(pid: int) -> set[int]:
    return set(os.sched_getaffinity(pid))


def program_pid(keeper: int) -> int:
    """The program under a keeper (its one child)."""
    children = Path(f"/proc/{keeper}/task/{keeper}/children")
    for _ in range(200):
        found = children.read_text().split()
        if found:
            return int(found[0])
        time.sleep(0.01)
    raise AssertionError("the keeper started no program")


def holder(tmp: Path) -> tuple[subprocess.Popen[str], int | None]:
    """Another process that shares a core and keeps it (its locks under ``tmp``); and the
    core it got."""
    env = {**os.environ, "TMPDIR": str(tmp)}
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER], stdout=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    return proc, None if line == "None" else int(line)


@pytest.fixture(autouse=True)
def own_locks(tmp_path, monkeypatch):
    """This test's own lock directory: no other referee on the machine holds its cores."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def test_a_program_runs_on_its_referees_core_which_comes_back_after_it():
    before = allowed(0)
    programs = [Program(["sleep", "30"], Limits()) for _ in range(2)]
    for program in programs:
        program.start()
    try:
        core = programs[0].core
        assert core is not None and programs[1].core == core  # both share the one core
        assert allowed(0) == {core}
        for program in programs:
            assert program.pid is not None
            assert allowed(program_pid(program.pid)) == {core}
        programs[0].close()
        assert allowed(0) == {core}  # still one program on it
    finally:
        for program in programs:
            program.close()
    assert allowed(0) == before
    unpinned = Program(["sleep", "30"], Limits(same_core=False))
    unpinned.start()
    try:
        assert unpinned.core is None and unpinned.pid is not None
        assert allowed(program_pid(unpinned.pid)) == before
    finally:
        unpinned.close()


def test_referees_take_a_core_each_and_a_killed_one_frees_its_core(tmp_path):
    holders = []
    try:
        cores = []
        for _ in CORES:  # every core held by another referee
            proc, core = holder(tmp_path)
            holders.append(proc)
            cores.append(core)
        assert sorted(cores) == CORES  # one each, none shared
        assert affinity.share_core() is None  # nothing left: not pinned
        holders[0].send_signal(signal.SIGKILL)
        holders[0].wait()
        assert affinity.share_core() == cores[0]  # the kernel freed the killed one's lock
        affinity.release()
    finally:
        for proc in holders:
            proc.kill()
            proc.wait()


def test_two_threads_of_one_process_take_two_cores_and_each_gets_its_own_back():
    """Each thread's pin is its own: a second referee thread takes another core, and each
    release restores that thread's cores, whichever order they come in."""
    import threading

    before = allowed(0)
    got: dict[str, object] = {}
    ready, done = threading.Event(), threading.Event()

    def second() -> None:
        got["core"] = affinity.share_core()
        got["pinned"] = allowed(threading.get_native_id())
        ready.set()
        done.wait(10)
        affinity.release()
        got["after"] = allowed(threading.get_native_id())

    mine = affinity.share_core()
    thread = threading.Thread(target=second)
    thread.start()
    assert ready.wait(10)
    assert mine is not None and got["core"] not in (None, mine)
    assert got["pinned"] == {got["core"]} and allowed(0) == {mine}
    affinity.release()  # this thread first: the other keeps its core
    assert allowed(0) == before
    done.set()
    thread.join(10)
    assert got["after"] == {mine}  # as it was made: on its maker's core


def test_a_lock_directory_that_cannot_be_made_runs_unpinned(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setattr(affinity, "lock_dir", lambda: blocked / "cores")  # under a file
    before = allowed(0)
    assert affinity.share_core() is None and allowed(0) == before
    program = Program(["sleep", "30"], Limits())
    program.start()  # a speed-up, never a reason to fail
    try:
        assert program.core is None and program.pid is not None
    finally:
        program.close()
