"""Sparring: training and evaluating game-playing agents at scale."""

from sparring.kernel_cache import configure as _configure_kernel_cache
from sparring.runtime import collector as _collector

# First, before MLflow, SQLAlchemy and Hydra are imported: every process that imports Sparring
# (a driver, a command, a Ray worker) spends less of its life in the garbage collector.
_collector.tune()

# Before any kernel module is imported: compiled kernels are cached per version of the sources.
KERNEL_CACHE = _configure_kernel_cache()
