"""Poker: cards, the 7-card evaluator, equity, and the preflop table."""
