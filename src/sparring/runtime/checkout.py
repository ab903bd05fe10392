"""Where the Sparring checkout is: its ``conf/``, ``pipelines/`` and ``cluster.yaml``, found here
and nowhere else.

The package lives at ``<checkout>/src/sparring``. A pipeline started by ``launch`` composes its
config from the ``conf/`` beside its script (``use_script_conf``); inside a Ray job the package may
be a shipped copy away from the tree, so ``conf_dir()`` prefers the directory the running
pipeline named.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
"""The checkout (``src/sparring/runtime/checkout.py`` is three levels below it)."""

_CONF_DIRS: list[str] = []  # the conf/ of the running pipeline script (set by launch)


def use_script_conf(script: str | Path) -> str:
    """The ``conf/`` beside ``pipelines/<script>.py`` of the tree the running pipeline script is
    in (``launch`` calls this), remembered as the running pipeline's; returns it."""
    path = str(Path(script).resolve().parent.parent / "conf")
    _CONF_DIRS.append(path)
    return path


def conf_dir() -> str:
    """The ``conf/`` directory the running pipeline was composed from (inside ``launch``),
    else the checkout's own ``conf/``."""
    if _CONF_DIRS:
        return _CONF_DIRS[-1]
    return str(ROOT / "conf")


def pipeline_script(name: str) -> Path:
    """``pipelines/<name>.py`` of the checkout (it may not exist in an installed package)."""
    return ROOT / "pipelines" / f"{name}.py"


def cluster_template() -> Path:
    """The cluster launcher template, ``cluster.yaml`` at the checkout's top."""
    return ROOT / "cluster.yaml"
