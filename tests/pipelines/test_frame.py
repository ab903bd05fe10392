"""The pipeline frame's share of the cluster: a search's trials side by side each fan out over
their share of the CPUs, not over every CPU (``frame.session.sharing_cluster``)."""

from __future__ import annotations

import threading

from sparring.frame.session import Session, sharing_cluster


def session(cpus: float) -> Session:
    return Session(job=None, pipeline="evolve", run=None, resources={"CPU": cpus})  # type: ignore[arg-type]


def test_a_run_counts_its_share_of_the_cluster():
    assert session(8).cores == 8
    with sharing_cluster(2):
        assert session(8).cores == 4
        assert session(2).cores == 1
        assert session(1).cores == 1  # never below one
        with sharing_cluster(3):
            assert session(8).cores == 2
        assert session(8).cores == 4  # the outer share is back
    assert session(8).cores == 8


def test_the_share_is_the_trials_thread_only():
    """Tune runs each trial in a thread of its process; another thread keeps the whole cluster."""
    seen: dict[str, int] = {}
    entered, checked = threading.Event(), threading.Event()

    def trial() -> None:
        with sharing_cluster(2):
            entered.set()
            checked.wait(10)
            seen["trial"] = session(4).cores

    worker = threading.Thread(target=trial)
    worker.start()
    entered.wait(10)
    seen["other"] = session(4).cores
    checked.set()
    worker.join()
    assert seen == {"trial": 2, "other": 4}
