"""Where numba keeps compiled kernels: a directory named by a hash of the package's sources.

numba's ``cache=True`` checks only the timestamp of the file that defines a kernel, so a kernel
that inlines a constant or a function from another file (``MAX_BETS`` from ``poker/rules.py``)
stayed compiled against the old value. Here every version of the sources gets its own cache
directory, ``<root>/<hash of every .py file of the package>``, chosen before any kernel is
defined: an edit anywhere means a fresh cache, and ``make clean-cache`` is never needed for
correctness (it only frees disk). ``root`` is ``$SPARRING_KERNEL_CACHE`` or
``~/.cache/sparring/kernels``.

Inside that directory a kernel is filed by its path inside the package (``kernel_locator``), so
every copy of the same sources shares it: a submitted job's shipped package and a fresh clone
load what the checkout compiled instead of compiling again.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from sparring.runtime import caches

PACKAGE = Path(__file__).resolve().parent
# numba tries these in turn for each cached kernel; the names without a module are numba's own.
LOCATORS = ",".join(
    [
        "sparring.kernel_locator.PackageLocator",
        "UserProvidedCacheLocator",
        "InTreeCacheLocator",
        "UserWideCacheLocator",
        "IPythonCacheLocator",
        "ZipCacheLocator",
    ]
)


def sources_digest(package: Path = PACKAGE) -> str:
    """A hash of the path and bytes of every Python source of the package."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def cache_root() -> Path:
    return caches.kernel_root()


def configure() -> Path:
    """Point numba's cache at this version's directory, and its kernels at their place inside it
    by package path (before any kernel is defined).

    Through ``NUMBA_CACHE_DIR`` and ``NUMBA_CACHE_LOCATOR_CLASSES`` while numba is not imported
    yet (importing it costs ~1 s that commands without kernels should not pay; Ray workers
    inherit the variables), else through numba's live config."""
    directory = cache_root() / sources_digest()
    os.environ["NUMBA_CACHE_DIR"] = str(directory)
    os.environ["NUMBA_CACHE_LOCATOR_CLASSES"] = LOCATORS
    if "numba" in sys.modules:
        from numba.core import config

        config.CACHE_DIR = str(directory)  # type: ignore[attr-defined]
        config.CACHE_LOCATOR_CLASSES = LOCATORS  # type: ignore[attr-defined]
    return directory
