"""Bounds on what a user may ask of Eleusis, kept apart from the kernels they protect so the
config and the CLI check them without importing numba."""

from __future__ import annotations

MAX_H0 = 100_000
"""The largest starting harma evaluated exactly (``theory.expected_guesses``). Policy iteration
holds a few arrays of 52 x (h0 + ``theory.MARGIN``) floats: about 170 MB at this bound, growing
linearly with h0."""

MAX_CAP = 1_000_000
"""The most guesses a game may take before it is a DNF (``env.CAP``, the benchmark's cap)."""
