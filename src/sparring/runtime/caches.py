"""Where Sparring keeps what it can always rebuild: ``$SPARRING_CACHE_DIR`` or
``~/.cache/sparring`` (the evaluator's tables, the empty MLflow store per MLflow version), and
numba's compiled kernels (``kernel_cache``: ``$SPARRING_KERNEL_CACHE`` or
``~/.cache/sparring/kernels``).

A program the arena runs gets a bare environment whose ``HOME`` is a fresh directory, so without
these paths a Sparring program in a seat (``sparring poker acpc-client``, ``sparring eleusis
scientist``) would compile every kernel and build every table again at each start: ~2
CPU-seconds before its first move. ``for_programs`` hands it the caches' paths; they hold no
secret.
"""

from __future__ import annotations

import os
from pathlib import Path

CACHE_DIR = "SPARRING_CACHE_DIR"
KERNEL_CACHE = "SPARRING_KERNEL_CACHE"
KERNEL_SEED = "SPARRING_KERNEL_SEED"  # compiled kernels to copy from, read-only (kernel_locator)
SANDBOX_KERNELS = "/home/agent/.cache/sparring/kernels"  # in a sandboxed program's own home


def cache_home() -> Path:
    """``$SPARRING_CACHE_DIR`` or ``~/.cache/sparring``."""
    return Path(os.environ.get(CACHE_DIR) or Path.home() / ".cache" / "sparring")


def kernel_root() -> Path:
    """``$SPARRING_KERNEL_CACHE`` or ``~/.cache/sparring/kernels``: the root under which
    ``kernel_cache`` keeps a directory per version of the sources."""
    return Path(os.environ.get(KERNEL_CACHE) or Path.home() / ".cache" / "sparring" / "kernels")


def for_programs() -> dict[str, str]:
    """The variables that point a program started with another ``HOME`` at this process's
    caches (absolute paths, as it starts in another directory)."""
    return {CACHE_DIR: str(cache_home().absolute()), KERNEL_CACHE: str(kernel_root().absolute())}


def for_sandboxed_programs() -> dict[str, str]:
    """The variables of a program in the sandbox (``runtime.programs.jail``), where the caches are
    read-only: it keeps its kernels in its private home, copying each folder of the machine's
    compiled kernels there on first use (``kernel_locator``) instead of compiling them. A
    program that could write the machine's kernels could plant code every process of Sparring
    would load."""
    return {KERNEL_CACHE: SANDBOX_KERNELS, KERNEL_SEED: str(kernel_root().absolute())}
