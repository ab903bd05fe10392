"""One core for a referee and the outside programs it talks to, while it talks to them.

A referee and a program take turns: one waits while the other works, a short turn each (a
tenth of a millisecond for a simple bot). On a virtual machine, waking a process that sleeps
on *another* core costs more than such a turn, so a program on its referee's core answers about
twice as fast (``benchmarks/arena.py``: a JSON-lines bot's decisions per second, 6,700 against
15,000 on the 2-core machine class). fastchess pins its engines for the same reason
(``-use-affinity``).

``share_core()`` pins the calling thread (the referee's) to a core that no other Sparring
referee on the machine holds and returns it for its programs (``runtime.subreaper``'s
``--affinity``); ``release()`` undoes it after the last of them. A core is held with a lock
file (``<temp>/sparring-cores/core-<n>.lock``, ``flock``: the kernel frees it when the holder
dies, so a killed referee holds nothing), tried from the core the thread is on. With one
allowed core, or every core held (more referees than cores), nothing is pinned and the programs
run where the scheduler puts them.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import tempfile
import threading
from pathlib import Path


class _Held:
    """This process's pin: how many programs share it, the core, its lock, the cores before."""

    def __init__(self) -> None:
        self.count = 0
        self.core: int | None = None
        self.fd: int | None = None
        self.before: set[int] | None = None


_guard = threading.Lock()
_held = _Held()


def _current_core() -> int | None:
    try:
        core = int(ctypes.CDLL(None).sched_getcpu())
    except (OSError, AttributeError):
        return None
    return core if core >= 0 else None


def _lock_dir() -> Path:
    path = Path(tempfile.gettempdir()) / "sparring-cores"
    path.mkdir(mode=0o777, exist_ok=True)
    return path


def share_core() -> int | None:
    """The core the calling thread is now pinned to, for its programs (None: not pinned, and
    then no ``release()`` is owed). Each core returned is owed one ``release()``; nested calls
    share the first one's core."""
    with _guard:
        if _held.count:
            _held.count += 1
            return _held.core
        allowed = sorted(os.sched_getaffinity(0))
        if len(allowed) < 2:
            return None
        here = _current_core()
        order = ([here] if here in allowed else []) + [c for c in allowed if c != here]
        directory = _lock_dir()
        for core in order:
            fd = os.open(directory / f"core-{core}.lock", os.O_CREAT | os.O_RDWR, 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            _held.count, _held.core, _held.fd = 1, core, fd
            _held.before = os.sched_getaffinity(0)
            os.sched_setaffinity(0, {core})
            return core
        return None


def release() -> None:
    """Undo one ``share_core()`` that returned a core: after the last, the thread's cores are
    as before and the core's lock is freed."""
    with _guard:
        if _held.count == 0:
            return
        _held.count -= 1
        if _held.count:
            return
        if _held.before is not None:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, _held.before)
        if _held.fd is not None:
            os.close(_held.fd)
        _held.core = _held.fd = None
        _held.before = None


__all__ = ["release", "share_core"]
