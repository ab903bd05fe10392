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

What else a game knows of itself it may declare as *traits* (``Traits``: each with its
default, so a game declares only what it has; ``trait`` reads one): how the arena makes a
comparison fair (``teams``, Mus; ``scored_by_total``, poker's chips; ``opening_plies``,
FlagBots), the table sizes it is played at (``table_sizes``), its result per 100 games
(``win_rate_unit``, poker's bb/100), its own agent specs (``house_agents``, ``house_agent``:
``poker@<baseline>``, ``mus@...``) and the arena's agent kinds that play it alone
(``agent_kinds``, ``champion_agent``) and its own record of a contest's games
(``history_writer``: poker's ACPC hand histories, ``hands.log``, in place of the arena's
``games.txt``). The arena, the config checks and the pipelines ask for these and name no game.

Config checks read traits before any game is imported: a game whose module compiles kernels
registers a light declaration beside it (a ``Traits`` in a module that imports no engine, which
its ``Game`` inherits; the built-ins' are listed in ``sparring.games.TRAITS``), and ``trait``
reads that; a game without one (a plugin) is imported to be asked.

Two optional methods of a ``Game`` need its engine and are asked of the game itself:
``at_table(seats)`` (the game at another of its ``table_sizes``) and ``with_variant(variant)``
(the game with the settings a contest names, Eleusis's deck, harma and cap).

A ``Game`` also gives ``sparring.conformance`` what only the game can know: ``snapshot(state)``
to compare states, ``illegal_actions(state, rng)`` to try, and ``leaks(state, player, obs)``,
the hidden information an observation shows.

The built-in games are listed once, in ``sparring.games``, as "module:attribute" references
imported on first ``get``; a game of another installed distribution joins them through the entry
point group ``sparring.games`` (``plugins``), and ``register`` adds one at run time (a test).

A *family* is a whole set of games under one prefix (``sparring.games.FAMILIES``: prefix ->
"module:function"): ``get("openspiel:connect_four")`` calls the family's function with the rest
of the name (``"connect_four"``, any pyspiel game string) and keeps the ``Game`` it makes, named
by the whole name. Its members are not listed by ``registered()`` (there is no end to them);
``refusal(name)`` says whether a name is a game, registered or of a family (the family's module
is imported only for a name with its prefix), and what is allowed when it is not.
"""

from __future__ import annotations

import functools
import importlib
import random
from collections.abc import Callable, Hashable, Mapping, Sequence
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


class Traits:
    """What a game may declare of itself beyond the protocol, each attribute with its default
    (the value here): a game declares only those it has, as attributes of its ``Game`` (or of
    the light declaration its ``Game`` inherits, see the module docstring), and the arena reads
    them with ``trait``. None of them is needed by ``sparring.conformance``."""

    opening_plies: int = 0
    """Random plies the arena plays before a unit's games when the game has no chance of its
    own to vary them (FlagBots: 2)."""

    teams: tuple[tuple[int, ...], ...] | None = None
    """The seats of each partnership (Mus: seats 0 and 2 against 1 and 3): a seat's fault loses
    its team's game, and a unit swaps the teams. None: every seat plays for itself."""

    scored_by_total: bool = False
    """The returns are amounts (poker's chips): a pair of games with the seats swapped is
    scored on its total, not game by game."""

    win_rate_unit: tuple[str, float] | None = None
    """The returns are amounts counted in this unit: its name and its size in returns (poker:
    the big blind, ``("bb", 2)``). The arena then shows A's result per 100 games in it beside
    the score (``A's bb/100``, the metrics ``<pair>/bb100``, ``_low``, ``_high``)."""

    table_sizes: range | None = None
    """The numbers of seats the game may be played at, a contiguous range (poker: 2..10),
    ``num_players`` among them; its ``at_table(seats)`` makes the game at one of them. None:
    at ``num_players`` alone."""

    house_agents: tuple[str, ...] = ()
    """The forms of the game's own agent specs, ``<game>@...`` as a user writes them
    (``mus@default``, ``mus@<rate>=<value>,...``): what an error lists as allowed."""

    agent_kinds: tuple[str, ...] = ()
    """The arena's agent kinds that play this game alone (``arena.agents.AgentSpec.kind``):
    poker's ``acpc`` (an ACPC program) and ``champion`` (a registered champion, made by
    ``champion_agent``)."""

    def house_agent(self, spec: str) -> Callable[[], Any] | None:
        """What makes the agent of one of the game's own specs (``<game>@...``, one of
        ``house_agents``), after checking ``spec`` now and cheaply (no engine is imported
        before the maker is called): None when ``spec`` is none of its forms, a ValueError
        saying what is expected when it is one with a value the game refuses."""
        return None

    history_writer: str | None = None
    """``"module:function"`` that writes a contest's games as the game's own record, called as
    ``f(game, rows, name) -> (artifact file name, text)`` with ``rows`` of ``games.jsonl``
    (seed, actions, the agent in each seat) and ``name`` naming an agent spec (poker: the ACPC
    dealer's ``hands.log``). None: the arena's ``games.txt``."""

    commands: str | None = None
    """``"module:function"`` that adds the game's own commands to the ``sparring`` command line
    (``sparring play <game>``, tools under ``sparring <game> ...``), called as ``f(top,
    groups)`` while the command line is built: ``top`` its subcommands, ``groups`` the shared
    groups by name (``play``; ``sparring.cli.common.group`` makes a game's own). The module is
    imported then, for ``sparring --help`` too: it imports the game's engines in its handlers,
    not at its top. None: the game has no commands of its own."""

    def champion_agent(self, resolved: dict[str, Any]) -> Any:
        """The agent that plays a registered champion (with ``champion`` in ``agent_kinds``):
        ``resolved`` is what the model registry holds of it (``champions.registry``)."""
        raise ValueError("a game whose agent_kinds hold champion makes its champions' agents")


DEFAULTS = Traits()
"""Every trait's default: what ``trait`` gives for a trait a game does not declare."""


def trait(game: str | object, name: str) -> Any:
    """The trait ``name`` (one of ``Traits``) of ``game``: a registered game's name (read from
    its light declaration when it has one, so no engine is imported) or a game itself; the
    default when the game does not declare it."""
    source = REGISTRY.traits(game) if isinstance(game, str) else game
    return getattr(source, name, getattr(DEFAULTS, name))


class Registry:
    """Games by name. ``builtin`` ("module:attribute" of a name -> reference table) is read
    on first use, so creating a registry imports no game; so is ``declared`` (name ->
    "module:attribute" of the game's light declaration of its traits, a ``Traits``) and
    ``families`` (prefix -> "module:function" that makes a family's game from the rest of its
    name, see the module docstring)."""

    def __init__(
        self, builtin: str | None = None, declared: str | None = None, families: str | None = None
    ) -> None:
        self._builtin, self._declared_table = builtin, declared
        self._families_table = families
        self._games: dict[str, Game[Any] | str] = {}
        self._declared: dict[str, Traits | str] = {}
        self._families: dict[str, str] = {}
        self._made: dict[str, Game[Any]] = {}  # the families' games made so far, by name

    def _table(self) -> dict[str, Game[Any] | str]:
        if self._builtin is not None:
            table: Mapping[str, str] = _resolve(self._builtin)
            self._builtin = None
            for name, ref in table.items():
                self._games.setdefault(name, ref)
            for name, ref in plugins().items():  # after the built-ins: none is replaced
                self._games.setdefault(name, ref)
        if self._declared_table is not None:
            declared: Mapping[str, str] = _resolve(self._declared_table)
            self._declared_table = None
            for name, ref in declared.items():
                self._declared.setdefault(name, ref)
        if self._families_table is not None:
            families: Mapping[str, str] = _resolve(self._families_table)
            self._families_table = None
            for prefix, ref in families.items():
                self._families.setdefault(prefix, ref)
        return self._games

    def families(self) -> tuple[str, ...]:
        """The prefixes of the families of games (imports none of them)."""
        self._table()
        return tuple(self._families)

    def family(self, name: str) -> str | None:
        """The prefix of the family ``name`` would be a game of (``openspiel`` for
        ``openspiel:connect_four``), or None: not a family's name, or a registered game's."""
        games = self._table()
        prefix, colon, rest = name.partition(":")
        if name in games or not colon or not rest or prefix not in self._families:
            return None
        return prefix

    def forms(self) -> str:
        """The names of games, as an error lists what is allowed: the registered ones, then
        each family's form (``openspiel:<game>``)."""
        games = ", ".join(self.registered()) or "none"
        families = [f"{prefix}:<game>" for prefix in self.families()]
        return f"a registered game ({games})" + "".join(f" or {f}" for f in families)

    def refusal(self, name: str) -> str | None:
        """None when ``name`` is a game (a registered one, or one its family makes: made now,
        importing the family's module); else what is allowed, with the family's reason for
        refusing it where it is a family's name (``openspiel:no_such_game``)."""
        if name in self._table():
            return None
        if self.family(name) is None:
            return self.forms()
        try:
            self.get(name)
        except (ValueError, ImportError) as exc:
            return f"{self.forms()}; {_one_line(exc)}"
        return None

    def traits(self, name: str) -> Any:
        """What the game ``name`` declares of itself: its light declaration when it has one
        (imported now; it imports no engine), else the game itself (imported now)."""
        games = self._table()
        declared = self._declared.get(name) if name in games else None
        if isinstance(declared, str):
            ref, declared = declared, _resolve(declared)
            if not isinstance(declared, Traits):
                raise TypeError(f"{ref} is not a sparring.game_api.Traits (of {name!r})")
            self._declared[name] = declared
        return declared if declared is not None else self.get(name)

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
        """The game registered as ``name`` (imported now if it was a reference), or the game
        of a family its name gives (``openspiel:connect_four``: made now, then kept). A name
        of neither is a KeyError; a family's name the family refuses, the family's ValueError
        (an ImportError when the family needs what is not installed)."""
        games = self._table()
        if name not in games:
            prefix = self.family(name)
            if prefix is None:
                families = "".join(f" or {f}:<game>" for f in self._families)
                raise KeyError(f"no game {name!r}; registered: {', '.join(games) or 'none'}"
                               f"{families}")  # fmt: skip
            return self._member(prefix, name)
        game = games[name]
        if isinstance(game, str):
            ref, game = game, _resolve(game)
            if not isinstance(game, Game) or game.name != name:
                raise TypeError(f"{ref} is not a sparring.game_api.Game named {name!r}")
            games[name] = game
        return game

    def _member(self, prefix: str, name: str) -> Game[Any]:
        """The game ``name`` of the family ``prefix``, made by the family's function once."""
        if name not in self._made:
            ref = self._families[prefix]
            game = _resolve(ref)(name.partition(":")[2])
            if not isinstance(game, Game) or game.name != name:
                raise TypeError(f"{ref} made no sparring.game_api.Game named {name!r}")
            self._made[name] = game
        return self._made[name]


def _one_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


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


def load(ref: str) -> Any:
    """The object ``ref`` ("module:attribute") names, its module imported now."""
    return _resolve(ref)


def later(ref: str, *args: Any) -> Callable[[], Any]:
    """A maker that calls ``ref`` ("module:attribute") with ``args`` when it is called, and
    only then imports its module: a game's light declaration names the classes of its agents
    this way, so reading it imports no engine (and its package has no circle of imports)."""
    return functools.partial(_call, ref, args)


def _call(ref: str, args: tuple[Any, ...]) -> Any:
    return _resolve(ref)(*args)


REGISTRY = Registry(
    builtin="sparring.games:GAMES", declared="sparring.games:TRAITS",
    families="sparring.games:FAMILIES",
)  # fmt: skip
"""Every game of the toolkit: the built-ins of ``sparring.games`` and any registered since,
and the games of its families (``openspiel:<game>``)."""


def register(game: Game[Any] | str, name: str | None = None) -> None:
    """Add a game to ``REGISTRY`` (see ``Registry.register``)."""
    REGISTRY.register(game, name)


def registered() -> tuple[str, ...]:
    """The names of the registered games."""
    return REGISTRY.registered()


def get(name: str) -> Game[Any]:
    """The registered game ``name``, or a family's (``openspiel:connect_four``)."""
    return REGISTRY.get(name)


def refusal(name: str) -> str | None:
    """None when ``name`` is a game of ``REGISTRY``, else what is allowed (see
    ``Registry.refusal``): the config checks' one line for ``game=``."""
    return REGISTRY.refusal(name)
