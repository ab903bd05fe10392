"""Probabilistic Eleusis: scientists that learn a hidden card distribution from censored
feedback (specs/eleusis.md)."""
