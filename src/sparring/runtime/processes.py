"""A process told apart from a later one with its PID: its start time (Linux ``/proc``); a
process's live descendants."""

from __future__ import annotations

import os


def process_start(pid: int) -> str | None:
    """When ``pid`` started (clock ticks since boot), None when it is gone or a zombie. A PID
    and this together name one process: a PID reused later has another start."""
    info = parent_and_start(pid)
    return None if info is None else info[1]


def parent_and_start(pid: int | str) -> tuple[int, str] | None:
    """(parent pid, start time) of a live process, None if it is gone (or a zombie)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    if fields[0] == b"Z":
        return None
    return int(fields[1]), fields[19].decode()


def descendants(root: int) -> dict[int, str]:
    """Every live descendant of ``root``: pid -> start time.

    One pass over ``/proc`` (the reaper runs it every ``POLL_S`` for as long as a driver or
    the shared head lives, so it is kept to plain reads: ~2 ms on an idle machine)."""
    children: dict[int, list[int]] = {}
    starts: dict[int, str] = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and (info := parent_and_start(name)) is not None:
            pid = int(name)
            children.setdefault(info[0], []).append(pid)
            starts[pid] = info[1]
    found: dict[int, str] = {}
    frontier = [root]
    while frontier:
        for pid in children.get(frontier.pop(), ()):
            if pid not in found:
                found[pid] = starts[pid]
                frontier.append(pid)
    return found
