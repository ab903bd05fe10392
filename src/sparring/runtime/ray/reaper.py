"""Nothing of an embedded Ray outlives its driver.

Killed with -9, a driver leaves Ray's ``DashboardAgent`` and ``RuntimeEnvAgent`` running with
PPID 1 (they ignore SIGTERM). ``start_reaper()`` starts a small watcher in its own session: while
the driver lives it records the driver's descendants (pid and start time, so a reused pid is
never taken for one of them); once the driver is gone it kills those still running, then exits.

    python -m sparring.runtime.ray.reaper <driver pid>
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from sparring.runtime.processes import descendants, parent_and_start

POLL_S = 0.5


def watch(driver: int, me: int) -> list[int]:
    """Record the driver's descendants until it is gone, then kill them; returns who was."""
    driver_start = parent_and_start(driver)
    seen: dict[int, str] = {}
    while (info := parent_and_start(driver)) is not None and info[1] == (driver_start or info)[1]:
        seen.update({pid: start for pid, start in descendants(driver).items() if pid != me})
        time.sleep(POLL_S)
    killed = []
    for pid, start in seen.items():
        info = parent_and_start(pid)
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
        [sys.executable, "-m", "sparring.runtime.ray.reaper", str(os.getpid())],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # a Ctrl-C to the driver's terminal does not stop it
        close_fds=True,
    )


if __name__ == "__main__":
    watch(int(sys.argv[1]), os.getpid())
