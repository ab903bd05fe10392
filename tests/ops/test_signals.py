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

from tests.helpers.commands import start_pipeline, wait_while_running
from tests.helpers.configs import TINY_EVOLVE

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


NUMPY_SAYS = "Cannot compare structured arrays unless they have a common dtype"


def _comparing_structured_arrays() -> None:
    """What numpy does with a signal's exception raised inside its comparison of structured
    arrays (``np.unique(..., axis=0)``): it puts a ``TypeError`` of its own in its place. The
    signal is sent here, so the handler's ``Terminated`` is raised inside the ``try``."""
    try:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # (the handler runs before this returns)
    except KeyboardInterrupt:
        raise TypeError(NUMPY_SAYS) from None


@pytest.mark.parametrize("library_replaces_it", [True, False])
def test_a_sigterm_a_library_turned_into_its_own_error_still_ends_the_run_killed(
    mlflow_store, library_replaces_it
):
    """Seen in CI: SIGTERM during evolve's ``np.unique`` surfaced as numpy's TypeError, the run
    was marked FAILED and evolve exited 1. Whatever unwinds the run after the signal is the
    signal: KILLED, and ``Terminated`` (exit 143) reaches the top. The control: the same error
    with no signal is the run's own failure."""
    from sparring.runtime import signals
    from sparring.runtime.tracking.runs import tracked_run

    before = signal.getsignal(signal.SIGTERM)
    signals.handle_termination()
    try:
        tracking = {"tracking": dict(mlflow_store, experiment="signals")}
        with pytest.raises(BaseException) as caught, tracked_run(tracking, "unit") as run:
            if library_replaces_it:
                _comparing_structured_arrays()
            raise TypeError(NUMPY_SAYS)
    finally:
        signal.signal(signal.SIGTERM, before)
        signals._received.clear()
    status = MlflowClient(mlflow_store["uri"]).get_run(run.run_id).info.status
    if library_replaces_it:
        assert isinstance(caught.value, signals.Terminated) and caught.value.exit_status == 143
        assert status == "KILLED"
    else:
        assert type(caught.value) is TypeError and status == "FAILED"


def test_a_stop_handled_before_a_run_does_not_turn_that_runs_error_into_a_stop(mlflow_store):
    """A long-lived process (this test session) handles a SIGTERM that something catches; a run
    that fails later is FAILED with its own error, not KILLED as the old signal's (the suite's
    worker ended with a KeyboardInterrupt when it was)."""
    from sparring.runtime import signals
    from sparring.runtime.tracking.runs import tracked_run

    before = signal.getsignal(signal.SIGTERM)
    signals.handle_termination()
    try:
        with pytest.raises(signals.Terminated):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
        tracking = {"tracking": dict(mlflow_store, experiment="signals")}
        with pytest.raises(TypeError), tracked_run(tracking, "unit") as run:
            raise TypeError(NUMPY_SAYS)
    finally:
        signal.signal(signal.SIGTERM, before)
        signals._received.clear()
    assert MlflowClient(mlflow_store["uri"]).get_run(run.run_id).info.status == "FAILED"
