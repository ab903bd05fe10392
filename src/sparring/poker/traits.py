"""What poker declares of itself to the arena (``game_api.Traits``), read by the config checks
before any game is played: plain values and checks, no kernels (the modules that play compile
them on import, so the agents are made by makers that import them when called).

- table sizes: ``MIN_SEATS`` .. ``MAX_SEATS`` seats (``Holdem.at_table``);
- the returns are chips: a duplicate pair is scored on its total, and a pair's result is also
  shown in big blinds per 100 hands (bb/100);
- its own agents: ``poker@<baseline>``, a baseline chromosome played by
  ``poker.house.ChromosomeAgent``; a registered champion (``champion@...``) and an ACPC program
  (``acpc:...``) play poker alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sparring.game_api import Traits, later, load
from sparring.poker.catalog import BASELINES, MAX_SEATS, MIN_SEATS

BASELINE_AGENTS = BASELINES[:-1]  # the players: "mixed" is a table of them
BIG_BLIND = 2  # chips: the engine's blinds are 1 and 2, its bets 2 (preflop, flop), 4 after
_PREFIX = "poker@"


class PokerTraits(Traits):
    """Poker's traits; ``poker.game.Holdem`` inherits them."""

    scored_by_total = True  # returns are chips: the arena scores a duplicate pair on its sum
    win_rate_unit = ("bb", BIG_BLIND)
    table_sizes = range(MIN_SEATS, MAX_SEATS + 1)
    house_agents = (f"{_PREFIX}<{'|'.join(BASELINE_AGENTS)}>",)
    agent_kinds = ("acpc", "champion")
    history_writer = "sparring.poker.acpc:hands_log"  # the ACPC dealer's log of the games
    commands = "sparring.cli.poker:register"  # sparring equity, poker replay, poker acpc-client

    def house_agent(self, spec: str) -> Callable[[], Any] | None:
        """``poker@<baseline>``: the baseline chromosome (``poker.bots.baseline``)."""
        if not spec.startswith(_PREFIX):
            return None
        name = spec[len(_PREFIX) :]
        if name not in BASELINE_AGENTS:
            raise ValueError(self.house_agents[0])
        return later("sparring.poker.house:baseline_agent", name)

    def champion_agent(self, resolved: dict[str, Any]) -> Any:
        """The champion's chromosome (``genes``) with its preflop factors, where it has them."""
        return load("sparring.poker.house:champion_agent")(resolved)


TRAITS = PokerTraits()
"""Poker's light declaration (``sparring.games.TRAITS``)."""
