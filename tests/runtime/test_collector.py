"""The garbage collector's tuning: what every process that imports Sparring gets, in a fresh
interpreter each (the test session's own thresholds are whatever pytest's imports left)."""

from __future__ import annotations

import subprocess
import sys
from ast import literal_eval

from sparring.runtime import collector


def _python(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    return done.stdout.strip()


def test_importing_sparring_raises_only_the_young_threshold() -> None:
    default, tuned = _python(
        "import gc; d = gc.get_threshold(); import sparring; print(d); print(gc.get_threshold())"
    ).splitlines()
    young, middle, old = literal_eval(default)
    assert literal_eval(tuned) == (collector.YOUNG, middle, old)
    assert young < collector.YOUNG


def test_cyclic_garbage_is_still_collected_without_asking() -> None:
    # A million reference cycles made and dropped: with collection off they would all stay.
    alive = _python(
        "import gc, sparring\n"
        "class Node:\n"
        "    def __init__(self): self.me = self\n"
        "for _ in range(1_000_000): Node()\n"
        "print(sum(isinstance(o, Node) for o in gc.get_objects()))"
    )
    assert int(alive) <= 2 * collector.YOUNG


def test_the_heap_is_frozen_at_exit_after_the_other_exit_functions() -> None:
    # An exit function registered before Sparring's runs after it (atexit is last in, first
    # out): it sees the heap frozen, so the shutdown's collections have nothing to walk.
    frozen = _python(
        "import atexit, gc\n"
        "atexit.register(lambda: print(gc.get_freeze_count()))\n"
        "import sparring\n"
        "print(gc.get_freeze_count(), len(gc.get_objects()))"
    ).splitlines()
    before, tracked = map(int, frozen[0].split())
    assert before == 0
    assert int(frozen[1]) > 0.9 * tracked > 1_000  # about all of them, whatever exit dropped
