"""Whether the Ray a driver uses is still whole, and one true line when it is not.

A driver joined to this machine's local head (``runtime.ray.local_head``) loses its Ray when the
head ends under it: killed, or stopping itself because its session directory was removed. Ray's
own answer is a minute of silence, then C++ log lines and exit 1 (or a task's
``FileNotFoundError`` for a worker's log file). Here:

- ``watch_head`` waits on the head's process (a pidfd: woken the moment it ends) and stops the
  main thread with ``RayLost`` (``signals.stop_main``): the run is marked KILLED, checkpoints
  already written stay, and the driver exits ``EXIT_RAY_LOST`` (75) with one line that says
  rerunning the same command resumes (or runs it again, for a pipeline without checkpoints).
- If the main thread has not ended the process ``GRACE_S`` seconds later, it is held inside
  Ray's C++ (which would end the process itself, exit 1, its reason only in a log file, once
  its own wait for the GCS runs out): the watcher then runs the ``when_stuck`` hooks (the run
  marked KILLED, the same one line said) and ends the process ``EXIT_RAY_LOST`` itself.
- Known gap: the head's raylet and its object store end with the head. A driver whose next
  touch of the object store comes before the watcher can act is ended at once by Ray's C++
  (``The connection to the plasma store is failed. Terminate the process.`` in its Ray log),
  exit 1 and nothing said. Its checkpoints stay and the rerun resumes and marks its run KILLED;
  only a supervising parent process could say the line then.
- ``diagnose`` names the cause of a failed task when it is Ray's, not the task's: the session
  directory gone, or the head gone (``runtime.ray.parallel`` asks it before raising a task's error).
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from sparring.runtime.processes import process_start
from sparring.runtime.signals import Stopped, stop_main

# EX_TEMPFAIL: the failure was the platform's and retrying is the remedy.
EXIT_RAY_LOST = 75


class RayLost(Stopped):
    """The Ray this driver used went away during the run."""

    exit_status = EXIT_RAY_LOST
    retry = True

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.said = what


_watched: dict[int, threading.Thread] = {}
_when_stuck: list[Callable[[RayLost], None]] = []

GRACE_S = 15.0
"""How long the main thread has to end the process after the head's end before the watcher
ends it (a normal unwind takes well under a second; Ray's own wait for its GCS is 60 s)."""


def when_stuck(hook: Callable[[RayLost], None]) -> Callable[[], None]:
    """Have ``hook(cause)`` run if the main thread is held when the head ends (see the module
    docstring); hooks run last registered first. Returns what removes it again."""
    _when_stuck.append(hook)
    return lambda: _when_stuck.remove(hook) if hook in _when_stuck else None


def watch_head(pid: int, start: str) -> None:
    """Stop the main thread with ``RayLost`` when the head process ``pid`` (started at
    ``start``, as ``local_head`` records it) ends. Once per head; a daemon thread."""
    if pid in _watched:
        return
    thread = threading.Thread(
        target=_wait_for_end, args=(pid, start), name="sparring-head-watch", daemon=True
    )
    _watched[pid] = thread
    thread.start()


def _wait_for_end(pid: int, start: str) -> None:

    try:
        handle = os.pidfd_open(pid)
    except OSError:  # gone already, or no pidfd (an old kernel): poll instead
        handle = None
    try:
        # (the pidfd is for the process that had the PID when it was opened: the same one
        # only if its start time still matches)
        if process_start(pid) == start:
            if handle is not None:
                select.select([handle], [], [])
            else:
                while process_start(pid) == start:
                    threading.Event().wait(1.0)
    finally:
        if handle is not None:
            os.close(handle)
    if _watched.get(pid) is threading.current_thread():
        cause = RayLost(head_ended(pid))
        stop_main(cause)
        threading.Event().wait(GRACE_S)  # the main thread ends the process before this, or
        _end_held_process(cause)  # it is held inside Ray: end it here


def _end_held_process(cause: RayLost) -> None:
    for hook in reversed(list(_when_stuck)):
        with contextlib.suppress(Exception):  # (each does what it can; the exit comes anyway)
            hook(cause)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(cause.exit_status)


def head_ended(pid: int) -> str:
    """The line for a run whose local head ``pid`` ended under it, with the head's reason
    when it gave one (its log's last line names a removed session directory)."""
    from sparring.runtime.ray import local_head

    reason = local_head.last_words()
    because = f" ({reason})" if reason else ""
    return f"the local Ray head (pid {pid}) ended during the run{because}"


def unwatch() -> None:
    """Forget the heads watched (a driver that disconnects from Ray on purpose)."""
    _watched.clear()


def session_dir() -> Path | None:
    """The Ray session directory of this driver's Ray, None when not connected."""
    with contextlib.suppress(Exception):
        import ray

        node = ray._private.worker.global_worker.node
        return Path(node.get_session_dir_path())
    return None


def diagnose() -> RayLost | None:
    """Why Ray itself cannot run this driver's tasks, or None when it looks whole (the
    failure is then the task's own)."""
    lost = None
    where = session_dir()
    if where is not None and not where.is_dir():
        lost = RayLost(
            f"Ray's session directory {where} was removed during the run, so Ray could not "
            "start workers (the local head ends, and the next run starts a new one)"
        )
    for pid, thread in list(_watched.items()):
        if lost is None and not thread.is_alive():
            lost = RayLost(head_ended(pid))
    if lost is not None:
        unwatch()  # said once: the head's end is not raised again while this unwinds
    return lost
