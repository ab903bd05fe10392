"""What Mus declares of itself to the arena (``game_api.Traits``), read by the config checks
before any game is played: two teams of partners, and its own agents, ``mus@default`` or
``mus@<rate>=<value>,...`` (a synthetic player with those ``mus.players.Profile`` rates,
played by ``mus.house.MusPlayerAgent``). ``mus.game.Mus`` inherits them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sparring.game_api import Traits, later

_PREFIX = "mus@"
_FORM = "mus@default or mus@<rate>=<value>,..."


class MusTraits(Traits):
    """Mus's traits; ``mus.game.Mus`` inherits them."""

    teams = ((0, 2), (1, 3))  # partners sit opposite: a seat's fault loses its team's game
    house_agents = ("mus@default", "mus@<rate>=<value>,...")
    commands = "sparring.cli.mus:register"  # sparring play mus, mus simulate, mus profile

    def house_agent(self, spec: str) -> Callable[[], Any] | None:
        """``mus@...``: a synthetic player with the spec's rates (``rates``)."""
        if not spec.startswith(_PREFIX):
            return None
        chosen = rates(spec)
        return later("sparring.mus.house:MusPlayerAgent", chosen)


def rates(spec: str) -> dict[str, Any]:
    """The ``Profile`` fields of a ``mus@`` spec (``mus@default``: none), checked: a
    ValueError says what is expected."""
    from sparring.mus.players import Profile

    body = spec[len(_PREFIX) :]
    if body == "default":
        return {}
    fields = set(Profile.__dataclass_fields__)
    chosen: dict[str, Any] = {}
    for item in body.split(","):
        name, eq, value = item.partition("=")
        if not eq or name.strip() not in fields:
            raise ValueError(f"{_FORM} with rates from {', '.join(sorted(fields))}")
        try:
            chosen[name.strip()] = int(value) if name.strip() == "bet_size" else float(value)
        except ValueError:
            raise ValueError(f"a number for {name.strip()} (got {value!r})") from None
    try:
        Profile(**chosen)
    except ValueError as exc:
        raise ValueError(f"rates a Mus player may have ({exc})") from None
    from sparring.mus.engine import MusConfig

    low, high = MusConfig().min_envido, MusConfig().max_bet
    if not low <= chosen.get("bet_size", low) <= high:  # an envido the game offers
        raise ValueError(f"bet_size in {low}..{high} (the envidos Mus offers)")
    return chosen


TRAITS = MusTraits()
"""Mus's light declaration (``sparring.games.TRAITS``)."""
