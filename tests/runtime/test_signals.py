"""A terminating signal never cuts a store write in half: inside ``deferred`` it waits."""

from __future__ import annotations

import os
import signal

import pytest

from sparring.runtime.signals import HANDLED, Terminated, deferred, handle_termination


@pytest.fixture
def handled():
    before = {signum: signal.getsignal(signum) for signum in HANDLED}
    handle_termination()
    yield
    for signum, handler in before.items():
        signal.signal(signum, handler)


@pytest.mark.parametrize("signum", HANDLED)
def test_a_signal_inside_a_deferred_block_is_raised_when_it_ends(handled, signum):
    done = []
    with pytest.raises(Terminated) as stop, deferred():
        os.kill(os.getpid(), signum)  # delivered at the next bytecode: inside the block
        done.append("the write finished")
        with deferred():  # nested blocks: raised only when the outermost ends
            done.append("an inner write too")
        done.append("after the inner block")
    assert done == ["the write finished", "an inner write too", "after the inner block"]
    assert stop.value.signum == signum and stop.value.exit_status == 128 + signum
    with pytest.raises(Terminated):  # outside a block it is raised at once, as before
        os.kill(os.getpid(), signum)
        done.append("never")
    assert done[-1] != "never"


def test_a_run_logger_write_is_deferred(handled, tmp_path):
    """A SIGTERM that arrives while the run logger writes lands after the write: the metric
    is in the store, and the store is not left locked for the KILLED mark that follows."""
    from mlflow.tracking import MlflowClient

    from sparring.runtime.tracking.runs import RunLogger

    client = MlflowClient(f"sqlite:///{tmp_path / 'mlflow.db'}")
    exp = client.create_experiment("e", artifact_location=(tmp_path / "a").as_uri())
    run = client.create_run(exp).info.run_id
    logger = RunLogger(client, run, exp)
    real = client.log_batch

    def log_batch_then_signal(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)  # arrives in the middle of the write
        return real(*args, **kwargs)

    client.log_batch = log_batch_then_signal
    with pytest.raises(Terminated):
        logger.log_metrics({"m": 1.5})
    client.log_batch = real
    client.set_terminated(run, status="KILLED")
    assert client.get_run(run).data.metrics == {"m": 1.5}
    assert client.get_run(run).info.status == "KILLED"
