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


def draw(src: Path, cache: Path, **env_vars: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(src), "SPARRING_KERNEL_CACHE": str(cache), **env_vars}
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("NUMBA_CACHE_LOCATOR_CLASSES", None)
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip()


def copy_sources(to: Path) -> Path:
    shutil.copytree(SRC / "sparring", to / "sparring", ignore=shutil.ignore_patterns("__pycache__"))
    return to


def test_a_constant_changed_in_another_file_reaches_a_cached_kernel(tmp_path):
    src = copy_sources(tmp_path / "src")
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


def test_a_copy_of_the_same_sources_elsewhere_loads_the_kernels_compiled_for_the_first(tmp_path):
    # As a submitted job's shipped package or a fresh clone: the same files at another path.
    cache = tmp_path / "cache"
    first = draw(copy_sources(tmp_path / "checkout"), cache)
    compiled = sorted(p.relative_to(cache) for p in cache.rglob("*.nb[ic]"))
    assert compiled, "the first copy compiled and cached its kernels"

    # numba's cache log says what each kernel came from (NUMBA_DEBUG_CACHE)
    shipped = draw(copy_sources(tmp_path / "shipped"), cache, NUMBA_DEBUG_CACHE="1")
    assert shipped.splitlines()[-1] == first
    assert "data loaded from" in shipped and "data saved to" not in shipped, shipped
    assert sorted(p.relative_to(cache) for p in cache.rglob("*.nb[ic]")) == compiled
