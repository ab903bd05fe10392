"""Sparring's own Mus players and Eleusis scientists as arena agents.

Each reads only what its seat's observation shows, as an outside agent must, and starts every
game afresh from the game's seed and its seat (so a game's play depends on nothing before it):

- ``MusPlayerAgent``: ``mus.players.SyntheticPlayer`` with fixed rates (``Profile`` fields),
  its random stream seeded per game and seat;
- ``ScientistAgent``: an ``eleusis.scientists.Scientist`` (a learner: it is told nothing of the
  deck), fed the feedback on its last guess before each new one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sparring.seeding import task_seed


def player_seed(info: dict[str, Any], kind: str) -> int:
    """The random seed of a house agent in one game: from the game's seed and the seat."""
    return task_seed(int(info.get("seed") or 0), kind, int(info.get("seat") or 0)) % (1 << 31)


class MusPlayerAgent:
    """A synthetic Mus player with ``rates`` (``mus.players.Profile`` fields)."""

    def __init__(self, rates: dict[str, Any]) -> None:
        from sparring.mus.players import Profile

        Profile(**rates)  # a bad rate fails here, not in the first game
        self.rates = dict(rates)
        self.player: Any = None

    def start(self, info: dict[str, Any]) -> None:
        from sparring.mus.players import SyntheticPlayer

        self.player = SyntheticPlayer.with_rates(seed=player_seed(info, "mus-player"), **self.rates)

    def act(self, observation: dict[str, Any], legal: Sequence[Any]) -> str:
        from sparring.mus.adapter import action_text

        if self.player is None:
            self.start({})
        return action_text(self.player.act(observation))


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
