"""Nothing of an embedded Ray outlives its driver, even one killed with -9 (without the reaper,
Ray's DashboardAgent and RuntimeEnvAgent stay behind with PPID 1)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from sparring.runtime.processes import descendants
from sparring.runtime.processes import parent_and_start as _stat
from tests.helpers.commands import ROOT

DRIVER = """
import time
from sparring.runtime.ray.session import init_ray
init_ray({"num_cpus": 1, "log_to_driver": False})
print("ready", flush=True)
time.sleep(600)
"""


def test_killing_the_driver_with_9_leaves_no_ray_process(tmp_path):
    driver = subprocess.Popen(
        [sys.executable, "-c", DRIVER],
        stdout=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    try:
        assert driver.stdout.readline().strip() == "ready"
        time.sleep(3)  # the agents start, and the reaper sees them
        ray_processes = {
            pid: start
            for pid, start in descendants(driver.pid).items()
            if "sparring.runtime.ray.reaper" not in Path(f"/proc/{pid}/cmdline").read_text()
        }
        assert len(ray_processes) >= 3  # gcs, raylet, agents, workers
        time.sleep(1.5)  # more than two of the reaper's scans: it has seen the newest of them
    finally:
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait(timeout=30)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        alive = [pid for pid, start in ray_processes.items() if (_stat(pid) or (0, ""))[1] == start]
        if not alive:
            return
        time.sleep(0.5)
    names = [Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")[:60] for pid in alive]
    raise AssertionError(f"still running after the driver was killed: {names}")
