"""SIGTERM and SIGHUP end a pipeline as Ctrl-C does: the MLflow run is marked KILLED, the resume
line is printed, and the process exits 128 + the signal's number (143 for SIGTERM).

cron, systemd, Kubernetes and ``ray job stop`` send SIGTERM. Python's default ends the process
at once (and Ray's driver handler aborts it), so nothing is closed; here the signal is raised in
the main thread as ``Terminated``, a ``KeyboardInterrupt``, and every ``except
KeyboardInterrupt`` on the way up (the run, Ray, Tune) unwinds as after Ctrl-C.

Another thread can stop the main thread the same way with a cause of its own (``stop_main``):
the watcher of the local Ray head does when the head is gone (``runtime.ray.health``).
"""

from __future__ import annotations

import _thread
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

HANDLED = (signal.SIGTERM, signal.SIGHUP)


class Stopped(KeyboardInterrupt):
    """The run was stopped from outside: it unwinds as after Ctrl-C (its MLflow run KILLED),
    says ``said`` in the resume line and exits ``exit_status``."""

    exit_status = 130
    said = "interrupted"
    retry = False  # whether running the same command again is the remedy (the platform failed)


class StoppedSaying(Stopped):
    """A stop whose one line its raiser composed (a search's resume command): printed as it
    is, with ``exit_status``."""

    def __init__(self, said: str, exit_status: int) -> None:
        super().__init__(said)
        self.said = said
        self.exit_status = exit_status


class Terminated(Stopped):
    """The process was asked to end by ``signum``."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_status(self) -> int:  # type: ignore[override]
        return 128 + self.signum

    @property
    def said(self) -> str:  # type: ignore[override]
        return f"terminated ({signal.Signals(self.signum).name})"


_pending: list[Stopped] = []  # stops that arrived inside ``deferred``, raised at its end
_depth = [0]  # how many ``deferred`` blocks the main thread is in
_received: list[Stopped] = []  # every stop handled (a SIGTERM / SIGHUP, a stop_main), in order
_asked: list[Stopped] = []  # causes given to ``stop_main``, raised by the handler in turn


def _raise(signum: int, frame: FrameType | None) -> None:
    cause = _asked.pop(0) if _asked else Terminated(signum)
    _received.append(cause)
    if _depth[0]:
        _pending.append(cause)
        return
    raise cause


def stop_main(cause: Stopped) -> None:
    """From any thread: stop the main thread with ``cause``, as a SIGTERM would stop it (after
    a ``deferred`` block, and out of a wait inside Ray). Needs ``handle_termination`` done."""
    _asked.append(cause)
    _thread.interrupt_main(signal.SIGTERM)


def mark() -> int:
    """Where the stops handled so far end: ``termination(exc, since=mark())`` then considers
    only the stops handled after this call (a long-lived process, a test session, handles
    many; a run's error is a stop only if the stop came during that run)."""
    return len(_received)


def termination(stop: BaseException, since: int = 0) -> Stopped | None:
    """The ``Stopped`` (a ``Terminated``, or a ``stop_main`` cause) that ``stop`` stands for,
    or None for a Ctrl-C or an error of the run's own. The handler raises its exception wherever
    the main thread is, and a library may put an exception of its own in its place: inside
    ``ray.get`` Ray raises a plain ``KeyboardInterrupt``, and inside a numpy comparison of
    structured arrays numpy raises a ``TypeError`` ("Cannot compare structured arrays", seen
    ending evolve with exit 1). Once a stop has been handled the process is ending, so whatever
    then unwinds it is the stop, known from what the handler received after ``since``
    (``mark``)."""
    if isinstance(stop, Stopped):
        return stop
    return _received[-1] if len(_received) > since else None


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
            cause = _pending[0]
            _pending.clear()
            raise cause


def handle_termination() -> None:
    """Turn SIGTERM and SIGHUP into ``Terminated`` in the main thread (elsewhere a no-op: only
    the main thread may set handlers). Call again after anything that installs its own (Ray's
    driver does, in ``ray.init``)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in HANDLED:
        signal.signal(signum, _raise)
