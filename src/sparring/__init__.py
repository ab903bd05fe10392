"""Sparring: training and evaluating game-playing agents at scale."""

from sparring.kernel_cache import configure as _configure_kernel_cache

# Before any kernel module is imported: compiled kernels are cached per version of the sources.
KERNEL_CACHE = _configure_kernel_cache()
