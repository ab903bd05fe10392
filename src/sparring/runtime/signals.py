"""SIGTERM and SIGHUP end a pipeline as Ctrl-C does: the MLflow run is marked KILLED, the resume
line is printed, and the process exits 128 + the signal's number (143 for SIGTERM).

cron, systemd, Kubernetes and ``ray job stop`` send SIGTERM. Python's default ends the process
at once (and Ray's driver handler aborts it), so nothing is closed; here the signal is raised in
the main thread as ``Terminated``, a ``KeyboardInterrupt``, and every ``except
KeyboardInterrupt`` on the way up (the run, Ray, Tune) unwinds as after Ctrl-C.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

HANDLED = (signal.SIGTERM, signal.SIGHUP)


class Terminated(KeyboardInterrupt):
    """The process was asked to end by ``signum``."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_status(self) -> int:
        return 128 + self.signum


_pending: list[int] = []  # signals that arrived inside ``deferred``, raised at its end
_depth = [0]  # how many ``deferred`` blocks the main thread is in
_received: list[int] = []  # every SIGTERM / SIGHUP handled, in order


def _raise(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    if _depth[0]:
        _pending.append(signum)
        return
    raise Terminated(signum)


def termination(stop: BaseException) -> Terminated | None:
    """The ``Terminated`` that ``stop`` stands for, or None for a Ctrl-C or an error of the
    run's own. The handler raises ``Terminated`` wherever the main thread is, and a library
    may put an exception of its own in its place: inside ``ray.get`` Ray raises a plain
    ``KeyboardInterrupt``, and inside a numpy comparison of structured arrays numpy raises a
    ``TypeError`` ("Cannot compare structured arrays", seen ending evolve with exit 1). Once
    a signal has been handled the process is ending, so whatever then unwinds it is the
    signal, known from what the handler received."""
    if isinstance(stop, Terminated):
        return stop
    return Terminated(_received[-1]) if _received else None


@contextmanager
def deferred() -> Iterator[None]:
    """A block that SIGTERM and SIGHUP do not cut in half: a signal that arrives inside it is
    raised as ``Terminated`` when the block ends. For writes to the MLflow store: interrupted
    mid-transaction, a sqlite write left the database locked, and the run could not then be
    marked KILLED. (Signal handlers run in the main thread only; elsewhere this is a no-op.)"""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _depth[0] += 1
    try:
        yield
    finally:
        _depth[0] -= 1
        if not _depth[0] and _pending:
            signum = _pending[0]
            _pending.clear()
            raise Terminated(signum)


def handle_termination() -> None:
    """Turn SIGTERM and SIGHUP into ``Terminated`` in the main thread (elsewhere a no-op: only
    the main thread may set handlers). Call again after anything that installs its own (Ray's
    driver does, in ``ray.init``)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in HANDLED:
        signal.signal(signum, _raise)
