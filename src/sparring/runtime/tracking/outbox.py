"""Records for a tracking server that stops answering: kept, sent later, never lost silently.

A driver's writes to an MLflow server (metrics, tags, artifacts, the run's end) go through an
``Outbox``. While the server answers they are sent at once. When it does not (refused, timed
out, a 5xx after MLflow's bounded retries), the write is kept, in order, one line says so, and
the work goes on; every later write first tries to send what was kept, at most every
``retry_every_s`` seconds so a dead server costs one bounded attempt per interval, not one per
write. At the run's end ``close`` sends what is left; if the server still does not answer it
raises ``TrackingLost``: one line saying what was not recorded and how to record it (the
pipeline's outputs and checkpoints are on disk already).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from sparring.runtime.errors import UsageError, first_line
from sparring.runtime.redact import redact_url

RETRY_EVERY_S = 15.0

# How MLflow's REST client words a server that did not answer (refused, reset, timed out, or
# 5xx until its retries ran out); anything else a write raises is a real error and passes.
_UNREACHABLE = (
    "Max retries exceeded",
    "failed with timeout exception",
    "Connection refused",
    "Connection aborted",
    "RemoteDisconnected",
    "too many 5",  # urllib3: "too many 500 error responses"
)


class TrackingLost(UsageError):
    """The tracking server stopped answering and some of a run's records were never sent."""


def unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` says the tracking server did not answer (as opposed to refusing what
    was sent: a bad value, a missing run)."""
    if isinstance(exc, BrokenPipeError):  # our stdout's reader left (`| head`), no server
        return False
    if isinstance(exc, ConnectionError):
        return True
    text = str(exc)
    return "API request to" in text and any(sign in text for sign in _UNREACHABLE)


class Outbox:
    """Writes to one tracking server, kept in order while it does not answer."""

    def __init__(
        self,
        uri: str,
        retry_every_s: float = RETRY_EVERY_S,
        say: Callable[[str], object] = lambda line: print(line, file=sys.stderr),
    ) -> None:
        self.uri = redact_url(uri)
        self.retry_every_s = retry_every_s
        self.say = say
        self.kept: list[Callable[[], object]] = []
        self.lost_since: float | None = None  # wall clock of the first write that failed
        self._next_try = 0.0

    def send(self, write: Callable[[], object]) -> None:
        """Do ``write`` now (after what is kept), or keep it when the server does not answer."""
        if self.kept and not self.flush():
            self.kept.append(write)
            return
        try:
            write()
        except Exception as exc:
            if not unreachable(exc):
                raise
            self._lost(exc)
            self.kept.append(write)

    def flush(self, force: bool = False) -> bool:
        """Send what is kept, oldest first (only when ``retry_every_s`` has passed since the
        last attempt, unless ``force``); True when nothing is left."""
        if not self.kept:
            return True
        if not force and time.monotonic() < self._next_try:
            return False
        sent = 0
        while self.kept:
            try:
                self.kept[0]()
            except Exception as exc:
                if unreachable(exc):
                    self._next_try = time.monotonic() + self.retry_every_s
                    return False
                # the server answered and refused this one: it cannot be sent, the rest can
                self.say(f"warning: a kept record was refused by the MLflow server and dropped: "
                         f"{first_line(str(exc))[:200]}")  # fmt: skip
            self.kept.pop(0)
            sent += 1
        self.say(f"the MLflow server at {self.uri} answers again: {sent} kept records sent")
        self.lost_since = None
        return True

    def close(self) -> None:
        """Send what is kept, at the end of the run; raise ``TrackingLost`` (one line: what was
        not recorded, what to do) when the server still does not answer."""
        if self.flush(force=True):
            return
        since = time.strftime("%H:%M:%S", time.localtime(self.lost_since or time.time()))
        raise TrackingLost(
            f"the MLflow server at {self.uri} stopped answering at {since}: {len(self.kept)} "
            "records of this run (its end among them) were not recorded; its outputs and "
            "checkpoints are kept. Run the same command again once the server answers: it "
            "resumes where the pipeline can and records a new run (this one is marked KILLED)"
        )

    def _lost(self, exc: BaseException) -> None:
        self._next_try = time.monotonic() + self.retry_every_s
        if self.lost_since is None:
            self.lost_since = time.time()
            self.say(
                f"warning: the MLflow server at {self.uri} does not answer; the work goes on "
                "and its records are kept, to be sent when it answers"
            )
