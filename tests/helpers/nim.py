"""A toy game for the bridges' tests: Nim's state under the game protocol (a heap of stones, a
move takes 1, 2 or 3, who takes the last stone wins)."""

from __future__ import annotations

from sparring.game_api import TERMINAL, IllegalActionError


class NimState:
    """A heap of stones; a move takes 1, 2 or 3; who takes the last stone wins."""

    def __init__(self, stones: int, player: int = 0, last: int | None = None) -> None:
        self.stones, self.player, self.last = stones, player, last

    def current_player(self) -> int:
        return TERMINAL if self.stones == 0 else self.player

    def legal_actions(self) -> list[int]:
        return [k for k in (1, 2, 3) if k <= self.stones]

    def apply_action(self, action: int) -> None:
        if type(action) is not int or action not in self.legal_actions():
            raise IllegalActionError(f"{action!r}")
        self.stones -= action
        self.last, self.player = self.player, 1 - self.player

    def is_terminal(self) -> bool:
        return self.stones == 0

    def returns(self) -> list[float]:
        if self.stones:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.last == 0 else [-1.0, 1.0]

    def observation(self, player: int) -> dict:
        return {"stones": self.stones, "to_move": self.player}

    def clone(self) -> NimState:
        return NimState(self.stones, self.player, self.last)
