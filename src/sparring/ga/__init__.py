"""Genetic algorithm: chromosomes evolved against a co-evolving trainer set (specs/poker.md §7)."""
