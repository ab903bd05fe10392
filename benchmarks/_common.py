"""Shared helpers of the benchmarks: timing, random hands, the report."""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

import numpy as np


def parser(description: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--quick", action="store_true", help="smaller sizes (for make bench / CI)")
    return p


def busy_seconds() -> float:
    """CPU-seconds the whole machine has been busy since boot, all cores (user, nice, system,
    irq, softirq of ``/proc/stat``; guest time is inside user)."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    ticks = os.sysconf("SC_CLK_TCK")
    return sum(int(fields[i]) for i in (0, 1, 2, 5, 6)) / ticks


def best_rate(fn: Callable[[], int], repeats: int = 3) -> float:
    """Items per second of the fastest of ``repeats`` calls (fn returns items done)."""
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        n = fn()
        best = max(best, n / (time.perf_counter() - start))
    return best


def random_hands(n: int, size: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = np.empty((n, size), dtype=np.uint8)
    step = 1_000_000
    for i in range(0, n, step):
        m = min(step, n - i)
        keys = rng.random((m, 52), dtype=np.float32)
        out[i : i + m] = np.argpartition(keys, size, axis=1)[:, :size]
    return out


def report(name: str, rows: list[tuple[str, float, str]], figures: dict) -> None:
    """Print a table (what, value, note) and the figures as JSON on the last line."""
    print(f"\n{name}  ({platform.processor() or platform.machine()}, {os.cpu_count()} cores)")
    width = max(len(r[0]) for r in rows)
    for what, value, note in rows:
        if isinstance(value, (int, np.integer)):  # a count or a depth: no decimals
            shown = f"{value:,}"
        else:
            shown = f"{value:,.0f}" if abs(value) >= 1000 else f"{value:,.2f}"
        print(f"  {what:<{width}}  {shown:>14}  {note}")
    figures = {"benchmark": name, "date": date.today().isoformat(), **figures}
    print(json.dumps(figures))
