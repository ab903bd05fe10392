"""A small generic negamax alpha-beta over any game with the OpenSpiel-style API, in Python.

It is the reference for the compiled engine's counting (leaves of the minimal tree on synthetic
uniform trees) and the pure-Python baseline of the search benchmark.
"""

from __future__ import annotations

from typing import Protocol


class SearchGame(Protocol):
    def legal_actions(self) -> list[int]: ...
    def apply_action(self, action: int) -> None: ...
    def undo(self) -> None: ...
    def is_terminal(self) -> bool: ...
    def evaluate(self) -> float: ...  # from the side to move


def negamax(
    game: SearchGame,
    depth: int,
    alpha: float = float("-inf"),
    beta: float = float("inf"),
    prune: bool = True,
    counter: list[int] | None = None,
) -> float:
    """Value of ``game`` to ``depth``; ``counter[0]`` counts the leaves evaluated."""
    if depth == 0 or game.is_terminal():
        if counter is not None:
            counter[0] += 1
        return game.evaluate()
    best = float("-inf")
    for action in game.legal_actions():
        game.apply_action(action)
        value = -negamax(game, depth - 1, -beta, -alpha, prune, counter)
        game.undo()
        best = max(best, value)
        if prune:
            alpha = max(alpha, value)
            if alpha >= beta:
                break
    return best


class UniformTree:
    """A synthetic game tree: ``branching`` children per node, ``depth`` levels, leaf values
    chosen so that the first child is always best (perfect move ordering)."""

    def __init__(self, branching: int, depth: int) -> None:
        self.b, self.d = branching, depth
        self.path: list[int] = []

    def legal_actions(self) -> list[int]:
        return list(range(self.b))

    def apply_action(self, action: int) -> None:
        self.path.append(action)

    def undo(self) -> None:
        self.path.pop()

    def is_terminal(self) -> bool:
        return len(self.path) == self.d

    def evaluate(self) -> float:
        # Value for the side to move at the leaf: every deviation from the first child is
        # worse for whoever deviated, so child 0 is best at every node.
        score = 0.0
        for ply, a in enumerate(self.path):
            mover_sign = 1 if (self.d - ply) % 2 == 1 else -1  # +1 if the leaf's opponent moved
            score += mover_sign * a
        return score
