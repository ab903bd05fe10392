"""One core for a referee and the outside programs it talks to, while it talks to them.

A referee and a program take turns: one waits while the other works, a short turn each (a
tenth of a millisecond for a simple bot). On a virtual machine, waking a process that sleeps
on *another* core costs more than such a turn, so a program on its referee's core answers about
twice as fast (``benchmarks/arena.py``: a JSON-lines bot's decisions per second, 6,700 against
15,000 on the 2-core machine class). fastchess pins its engines for the same reason
(``-use-affinity``).

``share_core()`` pins the calling thread (a referee) to a core that no other referee of this
user holds and returns it for its programs (``runtime.programs.keeper``'s ``--affinity``);
``release()``, from the same thread, undoes it after the last of them. Each thread keeps its
own pin, so two referees in one process take two cores. A core is held with a lock file
(``<temp>/sparring-cores-<uid>/core-<n>.lock``, ``flock``: the kernel frees it when the holder
dies, so a killed referee holds nothing), tried from the core the thread is on. With one
allowed core, every core held (more referees than cores), or anything refused (no lock
directory, a kernel without affinity), nothing is pinned and the programs run where the
scheduler puts them: pinning is a speed-up, never a reason to fail.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import tempfile
import threading
from pathlib import Path


class _Pin(threading.local):
    """This thread's pin: how many programs share it, the core, its lock, the cores before."""

    def __init__(self) -> None:
        self.count = 0
        self.core: int | None = None
        self.fd: int | None = None
        self.before: set[int] | None = None


_pin = _Pin()
# The cores this process may use, as it started: a thread made while its maker was pinned
# inherits one core, and would not see the others.
_ALLOWED = frozenset(os.sched_getaffinity(0))


def _current_core() -> int | None:
    try:
        core = int(ctypes.CDLL(None).sched_getcpu())
    except (OSError, AttributeError):
        return None
    return core if core >= 0 else None


def lock_dir() -> Path:
    """Where this user's referees hold their cores."""
    return Path(tempfile.gettempdir()) / f"sparring-cores-{os.getuid()}"


def _hold(core: int) -> int | None:
    """The lock of ``core`` taken (its descriptor), or None when another referee holds it."""
    fd = os.open(lock_dir() / f"core-{core}.lock", os.O_CREAT | os.O_RDONLY, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def share_core() -> int | None:
    """The core the calling thread is now pinned to, for its programs (None: not pinned, and
    then no ``release()`` is owed). Each core returned is owed one ``release()`` from this
    thread; nested calls share the first one's core."""
    if _pin.count:
        _pin.count += 1
        return _pin.core
    try:
        allowed = sorted(_ALLOWED)
        if len(allowed) < 2:
            return None
        before = os.sched_getaffinity(0)
        lock_dir().mkdir(mode=0o700, exist_ok=True)
        here = _current_core()
        for core in ([here] if here in allowed else []) + [c for c in allowed if c != here]:
            fd = _hold(core)
            if fd is None:
                continue
            try:
                os.sched_setaffinity(0, {core})
            except OSError:
                os.close(fd)
                return None
            _pin.count, _pin.core, _pin.fd, _pin.before = 1, core, fd, before
            return core
    except OSError:  # no lock directory, no affinity: run unpinned
        return None
    return None


def release() -> None:
    """Undo one ``share_core()`` that returned a core, from the thread that called it: after
    the last, the thread's cores are as before and the core's lock is freed."""
    if _pin.count == 0:
        return
    _pin.count -= 1
    if _pin.count:
        return
    if _pin.before is not None:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, _pin.before)
    if _pin.fd is not None:
        os.close(_pin.fd)
    _pin.core = _pin.fd = None
    _pin.before = None


__all__ = ["lock_dir", "release", "share_core"]
