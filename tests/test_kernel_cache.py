"""Compiled kernels are never stale: an edit in another file than the kernel's own reaches it,
with a warm cache and no `make clean-cache`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from sparring.kernel_cache import sources_digest

SRC = Path(__file__).resolve().parents[1] / "src"
# draw_card (eleusis/scientists.py) inlines next_u64 from seeding.py and its _GOLDEN constant.
PROBE = """
import numpy as np
from sparring.eleusis.scientists import draw_card
cdf = np.linspace(1 / 52, 1.0, 52)
state = np.uint64(12345)
cards = []
for _ in range(8):
    state, card = draw_card(cdf, state)
    cards.append(int(card))
print(cards)
"""


def draw(src: Path, cache: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(src), "SPARRING_KERNEL_CACHE": str(cache)}
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip()


def test_a_constant_changed_in_another_file_reaches_a_cached_kernel(tmp_path):
    src = tmp_path / "src"
    fresh = shutil.ignore_patterns("__pycache__")
    shutil.copytree(SRC / "sparring", src / "sparring", ignore=fresh)
    cache = tmp_path / "cache"
    before = draw(src, cache)
    assert any(cache.rglob("*.nbi")), "the first run left a warm cache"
    assert draw(src, cache) == before  # served from the cache

    seeding = src / "sparring" / "seeding.py"
    text = seeding.read_text()
    assert "_GOLDEN = np.uint64(0x9E3779B97F4A7C15)" in text
    seeding.write_text(text.replace("0x9E3779B97F4A7C15", "0x9E3779B97F4A7C17"))

    after = draw(src, cache)  # the same warm cache root
    assert after == draw(src, tmp_path / "cold")  # what a fresh compile of the new sources gives
    assert after != before


def test_the_digest_follows_every_source_file(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "a.py").write_text("A = 1\n")
    (package / "sub" / "b.py").write_text("B = 2\n")
    first = sources_digest(package)
    (package / "sub" / "b.py").write_text("B = 3\n")
    assert sources_digest(package) != first
    (package / "sub" / "b.py").write_text("B = 2\n")
    assert sources_digest(package) == first
