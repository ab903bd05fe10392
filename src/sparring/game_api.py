"""The one game protocol every Sparring game satisfies (after OpenSpiel's), and the registry.

This is the bottom layer: it imports nothing of the game packages. A game is a ``Game`` (a
name, the number of players, ``new_state(seed)``) whose states are ``GameState``s:

- ``current_player()``: the player to act, ``0 .. num_players - 1``, or ``TERMINAL`` (-1) once
  the game is over. Chance is never a player: every deal, draw and reshuffle is resolved from
  the seed, at ``new_state(seed)`` or inside ``apply_action`` by the state's own random stream,
  so a game is a pure function of (seed, actions) and no game exposes a chance node.
- ``legal_actions()``: the actions of the player to act, empty exactly when the game is over.
  An action is an ``int`` (never a bool) or a short ``str``, unchanged by a JSON round trip.
- ``apply_action(action)``: plays one legal action. Anything else (another phase's action, a
  misspelt word, any JSON value an outside agent may send) raises ``IllegalActionError`` and
  changes nothing.
- ``is_terminal()``; ``returns()``: one number per player, meaningful once the game is over.
  If the game declares ``constant_sum`` (0 for the zero-sum games) the returns sum to it; a
  one-player game against nature (Eleusis) declares ``None``.
- ``observation(player)``: a dict of plain JSON values (dicts with str keys, lists, str, int,
  float, bool, None) that is what ``player`` may know now: with its earlier observations, all it
  may know, and never another seat's hidden cards.
- ``clone()``: an independent copy that goes on exactly as the original would (the same random
  stream); applying an action to it leaves the original unchanged.

The arena (``sparring.arena``) drives any agent through these alone, over JSON lines:
``start`` (game, seat, limits), one ``act`` per decision with ``observation(seat)``,
``legal_actions()`` and the time left, answered by ``{"action": ...}``, and ``end`` with
``returns()``.

Two optional attributes tell the arena how to make a comparison fair: ``teams`` (the seats of
each partnership, Mus) and ``scored_by_total`` (the returns are amounts, poker's chips: a pair
of games with the seats swapped is scored on its total, not game by game).

A ``Game`` also gives ``sparring.conformance`` what only the game can know: ``snapshot(state)``
to compare states, ``illegal_actions(state, rng)`` to try, and ``leaks(state, player, obs)``,
the hidden information an observation shows.

The built-in games are listed once, in ``sparring.games``, as "module:attribute" references
imported on first ``get``; a game of another installed distribution joins them through the entry
point group ``sparring.games`` (``plugins``), and ``register`` adds one at run time (a test).

An optional ``opening_plies`` (an int) is how many random plies the arena plays before a unit's
games when the game has no chance of its own to vary them (FlagBots: 2; 0 when absent).
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

TERMINAL = -1
"""What ``current_player()`` returns once the game is over."""

A = TypeVar("A", bound=int | str)
"""A game's action type: ints (FlagBots moves) or short strings (Mus and poker words)."""


class IllegalActionError(ValueError):
    """An action the rules do not allow now (or no action at all); the state is unchanged."""


@runtime_checkable
class GameState(Protocol[A]):
    """A game in progress; see the module docstring for the contract of each method."""

    def current_player(self) -> int: ...

    def legal_actions(self) -> Sequence[A]: ...

    def apply_action(self, action: A) -> None: ...

    def is_terminal(self) -> bool: ...

    def returns(self) -> Sequence[float]: ...

    def observation(self, player: int) -> dict[str, Any]: ...

    def clone(self) -> GameState[A]: ...


@runtime_checkable
class Game(Protocol[A]):
    """A game's description: what the arena and the conformance check need to know of it."""

    @property
    def name(self) -> str: ...

    @property
    def num_players(self) -> int: ...

    @property
    def constant_sum(self) -> float | None:
        """What the returns sum to at the end (0 for zero-sum), or None for no such rule."""

    def new_state(self, seed: int) -> GameState[A]: ...

    # What only the game knows, for sparring.conformance.
    def snapshot(self, state: Any) -> Hashable:
        """Something equal for equal states (hidden parts and random streams included)."""

    def illegal_actions(self, state: Any, rng: random.Random) -> Sequence[object]:
        """A few actions of this game that its rules do not allow in ``state``."""

    def leaks(self, state: Any, player: int, observation: dict[str, Any]) -> list[str]:
        """The hidden information ``observation`` (of ``player``) shows; empty when none."""


class Registry:
    """Games by name. ``builtin`` ("module:attribute" of a name -> reference table) is read
    on first use, so creating a registry imports no game."""

    def __init__(self, builtin: str | None = None) -> None:
        self._builtin = builtin
        self._games: dict[str, Game[Any] | str] = {}

    def _table(self) -> dict[str, Game[Any] | str]:
        if self._builtin is not None:
            table: Mapping[str, str] = _resolve(self._builtin)
            self._builtin = None
            for name, ref in table.items():
                self._games.setdefault(name, ref)
            for name, ref in plugins().items():  # after the built-ins: none is replaced
                self._games.setdefault(name, ref)
        return self._games

    def register(self, game: Game[Any] | str, name: str | None = None) -> None:
        """Add ``game`` (or a "module:attribute" reference to one, with its ``name``).
        A name is registered once: another game under a taken name is a ValueError."""
        if isinstance(game, str):
            if name is None:
                raise ValueError(f"registering {game!r}: a reference needs its game's name")
        elif not isinstance(game, Game):
            raise TypeError(f"{game!r} is not a sparring.game_api.Game")
        else:
            name = name or game.name
        games = self._table()
        if name in games and games[name] is not game:
            raise ValueError(f"a game named {name!r} is already registered")
        games[name] = game

    def registered(self) -> tuple[str, ...]:
        """The names of every registered game, in registration order (imports none)."""
        return tuple(self._table())

    def get(self, name: str) -> Game[Any]:
        """The game registered as ``name`` (imported now if it was a reference)."""
        games = self._table()
        if name not in games:
            raise KeyError(f"no game {name!r}; registered: {', '.join(games) or 'none'}")
        game = games[name]
        if isinstance(game, str):
            ref, game = game, _resolve(game)
            if not isinstance(game, Game) or game.name != name:
                raise TypeError(f"{ref} is not a sparring.game_api.Game named {name!r}")
            games[name] = game
        return game


PLUGIN_GROUP = "sparring.games"
"""The entry point group through which another installed distribution adds a game: in its
``pyproject.toml``, ``[project.entry-points."sparring.games"]`` ``nim = "nim_game:GAME"``."""


def plugins() -> dict[str, str]:
    """name -> "module:attribute" of every game an installed distribution registers in
    ``PLUGIN_GROUP`` (read from the distributions' metadata: nothing is imported)."""
    from importlib.metadata import entry_points

    return {ep.name: ep.value for ep in entry_points(group=PLUGIN_GROUP)}


def _resolve(ref: str) -> Any:
    module, _, attribute = ref.partition(":")
    return getattr(importlib.import_module(module), attribute)


REGISTRY = Registry(builtin="sparring.games:GAMES")
"""Every game of the toolkit: the built-ins of ``sparring.games`` and any registered since."""


def register(game: Game[Any] | str, name: str | None = None) -> None:
    """Add a game to ``REGISTRY`` (see ``Registry.register``)."""
    REGISTRY.register(game, name)


def registered() -> tuple[str, ...]:
    """The names of the registered games."""
    return REGISTRY.registered()


def get(name: str) -> Game[Any]:
    """The registered game ``name``."""
    return REGISTRY.get(name)
