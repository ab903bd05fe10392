"""Nothing of an embedded Ray outlives its driver.

Killed with -9, a driver leaves Ray's ``DashboardAgent`` and ``RuntimeEnvAgent`` running with
PPID 1 (they ignore SIGTERM). ``start_reaper()`` starts a small watcher in its own session: while
the driver lives it records the driver's descendants (pid and start time, so a reused pid is
never taken for one of them); once the driver is gone it kills those still running, then exits.

    python -m sparring.runtime.reaper <driver pid>
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

POLL_S = 0.5


def _stat(pid: int | str) -> tuple[int, str] | None:
    """(parent pid, start time) of a live process, None if it is gone (or a zombie)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    if fields[0] == b"Z":
        return None
    return int(fields[1]), fields[19].decode()


def descendants(root: int) -> dict[int, str]:
    """Every live descendant of ``root``: pid -> start time.

    One pass over ``/proc`` (it runs every ``POLL_S`` for as long as a driver or the shared
    head lives, so it is kept to plain reads: ~2 ms on an idle machine)."""
    children: dict[int, list[int]] = {}
    starts: dict[int, str] = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and (info := _stat(name)) is not None:
            pid = int(name)
            children.setdefault(info[0], []).append(pid)
            starts[pid] = info[1]
    found: dict[int, str] = {}
    frontier = [root]
    while frontier:
        for pid in children.get(frontier.pop(), ()):
            if pid not in found:
                found[pid] = starts[pid]
                frontier.append(pid)
    return found


def watch(driver: int, me: int) -> list[int]:
    """Record the driver's descendants until it is gone, then kill them; returns who was."""
    driver_start = _stat(driver)
    seen: dict[int, str] = {}
    while (info := _stat(driver)) is not None and info[1] == (driver_start or info)[1]:
        seen.update({pid: start for pid, start in descendants(driver).items() if pid != me})
        time.sleep(POLL_S)
    killed = []
    for pid, start in seen.items():
        info = _stat(pid)
        if info is not None and info[1] == start:  # still the same process
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except ProcessLookupError:
                pass
    return killed


def start_reaper() -> subprocess.Popen | None:
    """Watch this process (Linux only: it reads /proc)."""
    if not Path("/proc/self/stat").exists():
        return None
    return subprocess.Popen(
        [sys.executable, "-m", "sparring.runtime.reaper", str(os.getpid())],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # a Ctrl-C to the driver's terminal does not stop it
        close_fds=True,
    )


if __name__ == "__main__":
    watch(int(sys.argv[1]), os.getpid())
