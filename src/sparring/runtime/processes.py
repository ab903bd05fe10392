"""A process told apart from a later one with its PID: its start time (Linux ``/proc``)."""

from __future__ import annotations

from pathlib import Path


def process_start(pid: int) -> str | None:
    """When ``pid`` started (clock ticks since boot), None when it is gone or a zombie. A PID
    and this together name one process: a PID reused later has another start."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if fields[0] == "Z" else fields[19]
