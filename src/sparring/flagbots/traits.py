"""What FlagBots declares of itself to the arena (``game_api.Traits``), read by the config
checks before any game is played (no kernels: the engine compiles them on import): the arena
varies a unit's start with two random plies (there is no chance), and its own agents are the
alpha-beta engine at a fixed depth or time per move, ``flagbots@depth=<n>`` and
``flagbots@<ms>ms`` (``flagbots.house.FlagBotsEngineAgent``). ``flagbots.game.FlagBotsGame``
inherits them."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from sparring.game_api import Traits, later

MAX_DEPTH = 10
_SPEC = re.compile(r"^flagbots@(?:depth=(\d+)|(\d+)ms)$")


class FlagBotsTraits(Traits):
    """FlagBots' traits; ``flagbots.game.FlagBotsGame`` inherits them."""

    opening_plies = 2  # no chance: the arena varies a unit's start with two random plies
    house_agents = (f"flagbots@depth=<1..{MAX_DEPTH}>", "flagbots@<ms>ms")
    commands = "sparring.cli.flagbots:register"  # sparring play flagbots

    def house_agent(self, spec: str) -> Callable[[], Any] | None:
        """``flagbots@depth=<n>`` or ``flagbots@<ms>ms``: the engine searching each move to
        that depth or for that time."""
        match = _SPEC.match(spec)
        if not match:
            return None
        depth, ms = match.groups()
        if depth is not None and not 1 <= int(depth) <= MAX_DEPTH:
            raise ValueError(self.house_agents[0])
        if ms is not None and not int(ms) >= 1:
            raise ValueError("flagbots@<ms>ms with ms >= 1")
        return later(
            "sparring.flagbots.house:FlagBotsEngineAgent",
            int(depth) if depth else None,
            int(ms) if ms else None,
        )


TRAITS = FlagBotsTraits()
"""FlagBots' light declaration (``sparring.games.TRAITS``)."""
