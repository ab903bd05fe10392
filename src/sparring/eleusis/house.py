"""Sparring's own Eleusis scientists as arena agents (``eleusis@...`` entrants,
``eleusis.traits``).

A scientist reads only what its seat's observation shows, as an outside agent must, and starts
every game afresh from the game's seed (so a game's play depends on nothing before it): an
``eleusis.scientists.Scientist`` (a learner: it is told nothing of the deck), fed the feedback
on its last guess before each new one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sparring.seeding import player_seed


class ScientistAgent:
    """An Eleusis learner by name (``eleusis.roster.LEARNERS``) and parameter."""

    def __init__(self, name: str, param: float) -> None:
        self.name, self.param = name, param
        self.scientist: Any = None
        self.guessed = False  # this game: a feedback before its first guess is not its own

    def start(self, info: dict[str, Any]) -> None:
        from sparring.eleusis.scientists import Scientist

        self.scientist = Scientist(self.name, seed=player_seed(info, "scientist"), param=self.param)
        self.guessed = False

    def act(self, observation: dict[str, Any], legal: Sequence[Any]) -> str:
        from sparring.eleusis.env import Feedback
        from sparring.eleusis.game import CARDS

        if self.scientist is None:
            self.start({})
        last = observation.get("last")
        if last is not None and self.guessed:  # (an opening's guesses were not its own)
            code = Feedback(0, bool(last["suit_right"]), bool(last["number_right"])).code
            self.scientist.learn(code)
        self.guessed = True
        return CARDS[self.scientist.guess()]
