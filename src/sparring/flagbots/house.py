"""Sparring's own FlagBots player as an arena agent (``flagbots@...`` entrants,
``flagbots.traits``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class FlagBotsEngineAgent:
    """Sparring's FlagBots alpha-beta engine at a fixed depth or a time per move, reading the
    position from the observation alone (as any outside agent must)."""

    def __init__(self, depth: int | None, ms: int | None) -> None:
        self.depth, self.ms = depth, ms
        self.engine: Any = None

    def start(self, info: dict[str, Any]) -> None:
        # a new engine per game: a table kept from earlier games would make a game's moves
        # depend on which games came before it (on how units are cut into blocks)
        self.engine = None

    def act(self, observation: dict[str, Any], legal: Sequence[Any]) -> Any:
        from sparring.flagbots.engine import Engine
        from sparring.flagbots.game import Position
        from sparring.flagbots.searchers import searcher

        position = Position.from_text(observation["position"])
        if self.engine is None:
            self.engine = Engine(position.cfg, searcher("full"))
        if self.depth is not None:
            result = self.engine.search(position.st, depth=self.depth, time_s=None)
        else:
            result = self.engine.search(position.st, time_s=(self.ms or 1) / 1000)
        return int(result.move)
