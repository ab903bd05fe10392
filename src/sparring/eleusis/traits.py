"""What Eleusis declares of itself to the arena (``game_api.Traits``), read by the config checks
before any game is played (names and checks only: ``eleusis.roster``, no kernels): its own
agents, ``eleusis@<learner>[:<param>=<value>]``, a scientist that learns
(``eleusis.house.ScientistAgent``). ``eleusis.game.Eleusis`` inherits them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sparring.eleusis.roster import LEARNERS, parse_scientist
from sparring.game_api import Traits, later

_PREFIX = "eleusis@"


class EleusisTraits(Traits):
    """Eleusis's traits; ``eleusis.game.Eleusis`` inherits them."""

    house_agents = ("eleusis@<learner>[:<param>=<value>]",)
    commands = "sparring.cli.eleusis:register"  # sparring eleusis referee, eleusis scientist

    def house_agent(self, spec: str) -> Callable[[], Any] | None:
        """``eleusis@...``: the scientist of ``learner``."""
        if not spec.startswith(_PREFIX):
            return None
        name, param = learner(spec)
        return later("sparring.eleusis.house:ScientistAgent", name, param)


def learner(spec: str) -> tuple[str, float]:
    """The scientist and its parameter of an ``eleusis@`` spec: a learner, told nothing of the
    deck (the oracle, the optimal policy and the informed reference are not agents); a
    ValueError says what is expected."""
    body = spec[len(_PREFIX) :]
    try:
        name, param = parse_scientist(body)
    except ValueError as exc:
        raise ValueError(f"eleusis@<{'|'.join(LEARNERS)}> ({exc})") from None
    if name not in LEARNERS:
        raise ValueError(f"eleusis@<{'|'.join(LEARNERS)}> ({name} is told the deck)")
    return name, param


TRAITS = EleusisTraits()
"""Eleusis's light declaration (``sparring.games.TRAITS``)."""
