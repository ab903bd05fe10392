"""Where numba files a kernel of this package: by its path inside the package, not on the disk.

numba's own locators name a kernel's cache directory by a hash of the absolute path of its
source file, so the same sources at another path compile every kernel again: a job submitted
to a cluster (Ray ships the package to ``.../runtime_resources/.../sparring``), a fresh clone,
a second checkout. Here a kernel of ``sparring/poker/rules.py`` is filed under
``$NUMBA_CACHE_DIR/sparring/poker`` wherever that file lives. That is safe because
``kernel_cache`` names ``$NUMBA_CACHE_DIR`` by a hash of every source of the package, and numba
still checks the kernel's own file by a hash of its content.

numba imports this module by name (``NUMBA_CACHE_LOCATOR_CLASSES``, set by ``kernel_cache``)
the first time it caches a kernel, so it costs nothing to a process without kernels. A file
outside the package falls through to numba's own locators.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from numba.core import config
from numba.core.caching import _CacheLocator, _SourceFileBackedLocatorMixin

PACKAGE = Path(__file__).resolve().parent  # the copy of sparring this process imported
KERNEL_SEED = "SPARRING_KERNEL_SEED"  # runtime.caches.KERNEL_SEED (no import: a peer room)
_COPIED: set[Path] = set()


def inside_package(py_file: str, package: Path = PACKAGE) -> Path | None:
    """``py_file``'s path relative to ``package``, or None when it lies outside it."""
    try:
        return Path(py_file).resolve().relative_to(package)
    except ValueError:
        return None


def cache_dir() -> str:
    """numba's ``CACHE_DIR`` (``$NUMBA_CACHE_DIR``), "" when unset."""
    return str(config.CACHE_DIR)  # type: ignore[attr-defined]  # set at runtime from the env


class PackageLocator(_SourceFileBackedLocatorMixin, _CacheLocator):
    """Caches a kernel of this package under ``$NUMBA_CACHE_DIR/sparring/<its folder>``."""

    def __init__(self, py_func, py_file: str, inside: Path):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = os.path.join(cache_dir(), PACKAGE.name, *inside.parent.parts)

    def get_cache_path(self) -> str:
        return self._cache_path

    @classmethod
    def from_function(cls, py_func, py_file: str):
        inside = inside_package(py_file)
        if not cache_dir() or inside is None:
            return None
        locator = cls(py_func, py_file, inside)
        try:
            locator.ensure_cache_path()
        except OSError:  # not writable: numba's next locator decides
            return None
        seed = os.environ.get(KERNEL_SEED)
        if seed:
            _copy_folder(Path(seed) / Path(cache_dir()).name, locator._cache_path, inside)
        return locator


def _copy_folder(seed: Path, cache_path: str, inside: Path) -> None:
    """Copy the seed's compiled kernels of ``inside``'s folder to ``cache_path`` once per
    process (a sandboxed program: the machine's kernels are read-only to it, its own copy is
    not, so it loads them without compiling and saves what it compiles itself)."""
    folder = seed.joinpath(PACKAGE.name, *inside.parent.parts)
    if folder in _COPIED:
        return
    _COPIED.add(folder)
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        target = os.path.join(cache_path, name)
        if not os.path.exists(target):
            try:
                shutil.copyfile(folder / name, target)
            except OSError:  # a file the compiling process is still replacing: compiled here
                continue
