"""Sparring's own Mus player as an arena agent (``mus@...`` entrants, ``mus.traits``).

It reads only what its seat's observation shows, as an outside agent must, and starts every
game afresh from the game's seed and its seat (so a game's play depends on nothing before it):
``mus.players.SyntheticPlayer`` with fixed rates (``Profile`` fields), its random stream seeded
per game and seat.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sparring.seeding import player_seed


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
        from sparring.mus.game import action_text

        if self.player is None:
            self.start({})
        # the engine player's legal: the kinds of action (the arena's words carry amounts)
        return action_text(self.player.act(observation, observation["legal"]))
