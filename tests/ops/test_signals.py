"""SIGTERM (cron, systemd, Kubernetes, ``ray job stop``) and SIGHUP end a pipeline as Ctrl-C
does: the run is marked KILLED, the resume line is printed, the exit status is 128 + signal,
and the same command with resume=true continues from the checkpoints."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time

import pytest
from mlflow.tracking import MlflowClient

from tests.commands import start_pipeline, wait_while_running
from tests.configs import TINY_EVOLVE

# Far more generations than the signal leaves time for: the run is always still going.
EVOLVE = (*TINY_EVOLVE, "ga.generations=1000")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_ends_evolve_like_ctrl_c(tmp_path, signum):
    db = tmp_path / "mlflow.db"
    proc = start_pipeline(
        "evolve",
        *EVOLVE,
        f"deals.root={tmp_path / 'deals'}",
        f"checkpoint_root={tmp_path / 'ck'}",
        f"tracking.uri=sqlite:///{db}",
        "resume=true",  # how a scheduled job runs it: the same command again continues
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_while_running(
        proc, lambda: list((tmp_path / "ck").glob("*/gen-00002.npz")), "checkpoint of generation 2"
    )
    os.kill(proc.pid, signum)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signum, err[-3000:]
    name = signal.Signals(signum).name
    last = err.strip().splitlines()[-1]
    assert last == f"terminated ({name}); run the same command again to resume", err[-3000:]
    assert "Traceback" not in err

    client = MlflowClient(f"sqlite:///{db}")
    [run] = client.search_runs([client.get_experiment_by_name("evolve").experiment_id])
    assert run.info.status == "KILLED"


def _sleep(seconds: float) -> None:
    time.sleep(seconds)


def test_a_sigterm_while_the_driver_waits_inside_ray_is_still_a_termination(ray_session):
    """The SIGTERM of a driver waiting in ``ray.get``: our handler raises ``Terminated`` there,
    Ray raises a plain ``KeyboardInterrupt`` in its place (so a run ended 130, "interrupted",
    now and then), and ``termination`` still tells it was SIGTERM: exit 143."""
    import ray

    from sparring.runtime import signals

    before = signal.getsignal(signal.SIGTERM)
    signals.handle_termination()
    ref = ray.remote(_sleep).remote(60)
    timer = threading.Timer(2.0, os.kill, (os.getpid(), signal.SIGTERM))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt) as caught:
            ray.get(ref)
    finally:
        timer.cancel()
        signal.signal(signal.SIGTERM, before)
        ray.cancel(ref, force=True)
    ended = signals.termination(caught.value)
    signals._received.clear()
    assert ended is not None and ended.signum == signal.SIGTERM and ended.exit_status == 143
    assert signals.termination(KeyboardInterrupt()) is None  # a Ctrl-C is a Ctrl-C
