"""A small generic negamax alpha-beta over any game of ``sparring.game_api``, in Python.

It is the reference for the compiled engine's counting (leaves of the minimal tree on synthetic
uniform trees) and the pure-Python baseline of the search benchmark. A searchable game is a
``game_api.GameState`` with int actions that can also take its last action back (``undo``) and
score a position for the side to move (``evaluate``).
"""

from __future__ import annotations

from typing import Any, Protocol

from sparring.game_api import TERMINAL, GameState, IllegalActionError


class SearchGame(GameState[int], Protocol):
    """The game API plus what a depth-first search needs."""

    def undo(self) -> None:
        """Take the last action back."""

    def evaluate(self) -> float:
        """The position's value for the side to move."""


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

    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else len(self.path) % 2

    def legal_actions(self) -> list[int]:
        return [] if self.is_terminal() else list(range(self.b))

    def apply_action(self, action: int) -> None:
        if type(action) is not int or not 0 <= action < self.b or self.is_terminal():
            raise IllegalActionError(f"{action!r} is not a child here")
        self.path.append(action)

    def undo(self) -> None:
        self.path.pop()

    def is_terminal(self) -> bool:
        return len(self.path) == self.d

    def returns(self) -> list[float]:
        """The leaf's value for the side to move there, and its negation for the other."""
        if not self.is_terminal():
            return [0.0, 0.0]
        mover = self.d % 2
        value = self.evaluate()
        return [value, -value] if mover == 0 else [-value, value]

    def observation(self, player: int) -> dict[str, Any]:
        return {"path": list(self.path)}

    def clone(self) -> UniformTree:
        other = UniformTree(self.b, self.d)
        other.path = list(self.path)
        return other

    def evaluate(self) -> float:
        # Value for the side to move at the leaf: every deviation from the first child is
        # worse for whoever deviated, so child 0 is best at every node.
        score = 0.0
        for ply, a in enumerate(self.path):
            mover_sign = 1 if (self.d - ply) % 2 == 1 else -1  # +1 if the leaf's opponent moved
            score += mover_sign * a
        return score
