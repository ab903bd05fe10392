"""A real disk that is (nearly) full: a small tmpfs mounted for one test.

ENOSPC is injected by the kernel, not by a stand-in: the code under test sees exactly what a
full disk gives it. Mounting needs root (CI runs as root); elsewhere the tests that use it skip
with the reason.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def small_disk(where: Path, size_kib: int = 256, free_kib: int = 4) -> Iterator[Path]:
    """A tmpfs of ``size_kib`` KiB mounted at ``where``, filled until about ``free_kib`` KiB are
    left (a file named ``.filler``, which a test may delete to free the space); unmounted after."""
    where.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_kib}k", "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.strip()}")
    try:
        filler = where / ".filler"
        with open(filler, "wb") as f:
            f.write(b"\0" * ((size_kib - free_kib) * 1024))
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)
