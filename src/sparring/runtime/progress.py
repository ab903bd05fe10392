"""Per-step progress of a pipeline, for whoever drives it.

A pipeline that works in steps (evolve: generations) calls ``report_step`` after each one. By
default nobody listens and the call costs nothing: the metrics are a function, called only
when a listener is installed. A hyperparameter search installs one with ``reporting`` (a Tune
trial reports to its scheduler); the listener may end the run early by raising ``StopRun``,
which ``tracked_run`` records as a stop, not a failure.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

Metrics = Callable[[], Mapping[str, float]]
Listener = Callable[[int, int, Metrics], None]

_local = threading.local()  # per thread: two pipelines in one process never share listeners


def _listeners() -> list[Listener]:
    if not hasattr(_local, "listeners"):
        _local.listeners = []
    return _local.listeners


class StopRun(Exception):
    """Raised by a listener: end the run now (a scheduler stopped it early)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def report_step(step: int, total: int, metrics: Metrics) -> None:
    """Step ``step`` of ``total`` is done (1-based); ``metrics()`` gives its numbers, computed
    only if someone listens. May raise ``StopRun``."""
    for listener in list(_listeners()):
        listener(step, total, metrics)


@contextmanager
def reporting(listener: Listener) -> Iterator[None]:
    """Send the steps of the pipeline run inside this block to ``listener``."""
    _listeners().append(listener)
    try:
        yield
    finally:
        _listeners().remove(listener)
