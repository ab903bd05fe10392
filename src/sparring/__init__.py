"""Sparring: training and evaluating game-playing agents at scale."""

import os as _os

# Before MLflow is imported (it decides at import): MLflow 3 fetches a config from its servers
# and sends usage events about every process that uses it. Sparring's processes keep to the
# machine, as they keep Ray's usage stats off; MLFLOW_DISABLE_TELEMETRY=false sends them.
_os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")

from sparring.kernel_cache import configure as _configure_kernel_cache
from sparring.runtime import collector as _collector

# First, before MLflow, SQLAlchemy and Hydra are imported: every process that imports Sparring
# (a driver, a command, a Ray worker) spends less of its life in the garbage collector.
_collector.tune()

# Before any kernel module is imported: compiled kernels are cached per version of the sources.
KERNEL_CACHE = _configure_kernel_cache()
