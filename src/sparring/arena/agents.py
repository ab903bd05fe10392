"""Agents and the one string form that names them (an agent spec).

An ``Agent`` plays through the game protocol (``sparring.game_api``) alone:
``start(info)`` (game, seat, players, seed), ``act(observation, legal) -> action`` per decision,
``end(returns)``; ``close()`` when it leaves the contest. ``start``, ``end`` and ``close`` are
optional for a Python agent.

Specs (``parse``; a bad one is one ``ConfigError`` line naming what is allowed):

- ``py:package.module:Name``: a Python class or factory, called with no arguments, in process
  (the fast path);
- ``cmd:<command line>``: an outside program speaking the line protocol
  (``sparring.arena.protocol``), run under ``sandbox.Limits``;
- ``acpc:<command line>``: an ACPC poker program, started with host and port appended and
  dealt to over TCP (``acpc_seat``), under the same limits;
- ``openspiel:<bot>[:<param>=<value>,...]``: an OpenSpiel bot, in process, in OpenSpiel's games
  (``openspiel:<game>``, the registry's family): ``openspiel:uniform_random[:seed=<n>]`` and
  ``openspiel:mcts[:simulations=<n>,uct_c=<c>,rollouts=<n>,seed=<n>]`` (a game of perfect
  information only), e.g. ``openspiel:mcts:simulations=200,uct_c=2,seed=1``
  (``interop.spiel_games``);
- Sparring's own: ``random`` and ``first`` (any game: a uniformly random or the first legal
  action), ``champion@<alias|version>`` (a registered champion; the pipeline reads it from the
  model registry and hands it to ``make`` as ``resolved``, and the game that declares the
  ``champion`` kind makes its agent: poker's chromosome) and each game's own,
  ``<game>@...``, which the game checks and makes (``game_api.Traits.house_agent``):
  ``flagbots@depth=<n>`` and ``flagbots@<ms>ms`` (the alpha-beta engine at a fixed depth or
  time per move), ``poker@<baseline>`` (a baseline chromosome: calling_station, maniac,
  random, tight_aggressive), ``mus@default`` or ``mus@<rate>=<value>,...`` (a synthetic Mus
  player, ``mus.players.Profile`` fields) and ``eleusis@<learner>[:<param>=<value>]`` (an
  Eleusis scientist that learns).

Which game an agent plays (``AgentSpec.plays``, ``AgentSpec.games``) is asked of the registry
too: a game's own spec plays that game, an ``acpc:`` program, a champion or an OpenSpiel bot the
games whose ``agent_kinds`` hold its kind (poker's; every game of the ``openspiel`` family, a
family's own kind being named as the family), any other every game; ``AgentSpec.unfit`` adds
what the agent itself refuses of a game it may play (MCTS in a game of imperfect information).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import random
import re
import shlex
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from sparring import game_api
from sparring.arena.protocol import ProgramAgent
from sparring.runtime.errors import ConfigError
from sparring.runtime.programs.program import Limits

KINDS = "py:<module>:<Name>, cmd:<command line>, acpc:<command line>, random, first"
OPENSPIEL = "openspiel"  # the kind of OpenSpiel's bots: interop.spiel_games.KIND
GAME_KINDS = ("acpc", "champion", OPENSPIEL)  # kinds that play the games declaring them
CHAMPION = "champion@<alias|version>"
_CHAMPION = re.compile(r"^champion@(?:(\d+)|([A-Za-z_][\w-]*))$")
_PY = re.compile(r"^py:([A-Za-z_][\w.]*):([A-Za-z_]\w*)$")


@runtime_checkable
class Agent(Protocol):
    """What the arena plays; see the module docstring."""

    def act(self, observation: dict[str, Any], legal: Sequence[Any]) -> Any: ...


@dataclass(frozen=True)
class AgentSpec:
    """A parsed spec: ``kind`` (``py``, ``cmd``, ``acpc``, ``builtin``, ``champion``,
    ``openspiel``) and what it names (a champion: ``alias`` or ``version`` of the registered
    model)."""

    text: str
    kind: str
    argv: tuple[str, ...] = ()
    module: str = ""
    attribute: str = ""
    alias: str = ""
    version: str = ""

    @property
    def games(self) -> tuple[str, ...] | None:
        """The games it can play (None: any), as an error lists them: a game's own spec that
        game; an ACPC program, a champion or an OpenSpiel bot the registered games that declare
        its kind (``agent_kinds``) and the family named as its kind (``openspiel:<game>``)."""
        if self.kind in GAME_KINDS:
            return tuple(
                g for g in game_api.registered() if self.kind in game_api.trait(g, "agent_kinds")
            ) + tuple(f"{f}:<game>" for f in game_api.REGISTRY.families() if f == self.kind)
        if self.kind == "builtin" and "@" in self.text:
            return (own_game(self.text),)
        return None

    def plays(self, game: str) -> bool:
        """Whether it plays the game ``game`` (a registered game's name, or a family's: that
        game is made now to be asked, ``openspiel:<game>`` importing pyspiel)."""
        if self.kind in GAME_KINDS:
            return self.kind in game_api.trait(game, "agent_kinds")
        if self.kind == "builtin" and "@" in self.text:
            return own_game(self.text) == game
        return True

    def unfit(self, game: str) -> str | None:
        """Why it cannot play ``game`` (None: it can), as a ``ConfigError`` says what is
        expected: a game it does not play, or (an OpenSpiel bot) one it refuses."""
        if not self.plays(game):
            return f"an agent of {game} ({self.text} plays {', '.join(self.games or ())})"
        if self.kind == OPENSPIEL:
            from sparring.interop import spiel_games

            why = spiel_games.misfit(self.text, game_api.get(game))
            if why:
                return f"an agent that can play {game} ({self.text}: {why})"
        return None

    def digest(self) -> str:
        """What identifies the agent's code: the program file's SHA-256 (a ``cmd:`` spec's
        executable, or its script when the executable is an interpreter), the module file's
        for ``py:``, the spec itself for a built-in, with OpenSpiel's version for its bots."""
        if self.kind == OPENSPIEL:
            from importlib.metadata import PackageNotFoundError, version

            try:
                release = version("open_spiel")
            except PackageNotFoundError:
                release = "none"
            return hashlib.sha256(f"{self.text}|open_spiel {release}".encode()).hexdigest()[:16]
        path: Path | None = None
        if self.kind in ("cmd", "acpc"):
            scripts = [Path(a) for a in self.argv[1:] if Path(a).is_file()]
            path = scripts[0] if scripts else Path(shutil.which(self.argv[0]) or self.argv[0])
        elif self.kind == "py":
            spec = importlib.util.find_spec(self.module)
            path = Path(spec.origin) if spec and spec.origin else None
        if path is None or not path.is_file():
            return hashlib.sha256(self.text.encode()).hexdigest()[:16]
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def _callable_bare(found: Any) -> bool:
    """Whether ``found()`` can be called with no arguments (``os.system`` cannot): every
    parameter without a default is refused; a signature Python cannot read is let through."""
    try:
        signature = inspect.signature(found)
    except (TypeError, ValueError):
        return True
    return all(
        p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        for p in signature.parameters.values()
    )


def own_game(text: str) -> str:
    """The game whose own spec ``text`` (``<game>@...``) would be: its name before the ``@``."""
    return text.partition("@")[0]


def allowed() -> str:
    """Every form of agent spec, as an error lists them (the games' own from the registry)."""
    from sparring.interop.spiel_games import FORMS

    own = [form for g in game_api.registered() for form in game_api.trait(g, "house_agents")]
    return ", ".join([KINDS, *FORMS, CHAMPION, *own])


def _house_maker(text: str, key: str) -> Any:
    """The maker of a game's own spec ``text`` (``<game>@...``, checked by the game), or None
    when no registered game owns it."""
    game = own_game(text)
    if "@" not in text or game not in game_api.registered():
        return None
    try:
        return game_api.trait(game, "house_agent")(text)
    except ValueError as exc:
        raise ConfigError(key, text, str(exc)) from None


def parse(text: str, key: str = "agent") -> AgentSpec:
    """The spec ``text`` checked (a ``cmd:`` program must exist and be executable, a ``py:``
    module must be importable and have the name); nothing is started."""
    text = text.strip()
    if text.startswith(("cmd:", "acpc:")):
        kind, _, line = text.partition(":")
        try:
            argv = tuple(shlex.split(line))
        except ValueError as exc:
            raise ConfigError(key, text, f"a command line ({exc})") from None
        if not argv:
            raise ConfigError(key, text, f"{kind}: followed by a command line")
        program = argv[0]
        found = shutil.which(program) if "/" not in program else program
        if found is None or not Path(found).is_file():
            raise ConfigError(key, text, f"a program that exists ({program}: no such program)")
        if not shutil.which(found):  # exists but may not be run
            raise ConfigError(key, text, f"an executable program ({program} is not executable)")
        # the program runs in a private directory: paths given relative to here, made absolute
        argv = tuple(
            str(Path(a).resolve()) if not Path(a).is_absolute() and Path(a).is_file() else a
            for a in argv
        )
        return AgentSpec(text, kind, argv=argv)
    if text.startswith("py:"):
        match = _PY.match(text)
        if not match:
            raise ConfigError(key, text, "py:<module>:<Name>, e.g. py:mybots.poker:Caller")
        module, attribute = match.groups()
        try:
            loaded = importlib.import_module(module)
        except ImportError as exc:
            raise ConfigError(key, text, f"an importable module ({exc})") from None
        found = getattr(loaded, attribute, None)
        if not callable(found):
            raise ConfigError(key, text, f"a class or factory {attribute} in {module}")
        if not _callable_bare(found) or (
            isinstance(found, type) and not callable(getattr(found, "act", None))
        ):
            raise ConfigError(key, text, f"a class with act(observation, legal), or a factory "
                              f"called with no arguments that makes one ({module}.{attribute} "
                              f"is not)")  # fmt: skip
        return AgentSpec(text, "py", module=module, attribute=attribute)
    if text.startswith(f"{OPENSPIEL}:"):
        from sparring.interop.spiel_games import parse_bot

        try:
            parse_bot(text)  # (reads the spec alone: no pyspiel)
        except ValueError as exc:
            raise ConfigError(key, text, str(exc)) from None
        return AgentSpec(text, OPENSPIEL)
    if text in ("random", "first"):
        return AgentSpec(text, "builtin")
    if text.startswith("champion@"):
        match = _CHAMPION.match(text)
        if not match:
            raise ConfigError(key, text, "champion@<alias> or champion@<version>")
        version, alias = match.groups()
        return AgentSpec(text, "champion", alias=alias or "", version=version or "")
    if _house_maker(text, key) is not None:  # a game's own, checked by the game
        return AgentSpec(text, "builtin")
    raise ConfigError(key, text, f"an agent spec: one of {allowed()}")


_PIECE = re.compile(r"[^/\s]+")  # a word of a command line, or a part of a path in it
_LONGEST = 48  # a longer name is cut (two names go into a pair's metric key: MLflow takes 250)


def _tails(spec: str) -> list[str]:
    """A spec's possible names, shortest first: for a program, its command line's last 1, 2,
    ... words and path parts as written (``bot.py``, ``x/bot.py``, ``python3 x/bot.py``);
    for any other spec the spec itself (``:`` as ``_``)."""
    if not spec.startswith(("cmd:", "acpc:")):
        return [spec.replace(":", "_")]
    kind, _, line = spec.partition(":")
    line = " ".join(line.split())
    starts = [m.start() for m in _PIECE.finditer(line)]
    return [line[s:] for s in reversed(starts)] or [kind]


def _cut(name: str) -> str:
    """A name longer than ``_LONGEST`` as its first word or path part, ``...``, and its last
    (``player...sparring.limit.2p.game``)."""
    pieces = _PIECE.findall(name)
    return f"{pieces[0]}...{pieces[-1]}" if len(name) > _LONGEST and len(pieces) > 1 else name


def short_name(spec: str) -> str:
    """A spec as a metric name or a log's player name: a program's last word (a path's file
    name), else the spec (``:`` as ``_``). Within a contest, see ``short_names``."""
    return _tails(spec)[0]


def short_names(specs: Sequence[str]) -> list[str]:
    """Each spec's name within a contest of ``specs``: its ``short_name``, unless that is
    another's too; then each of those takes one more word or path part of its command line
    until it is alone (``x/bot.py`` and ``y/bot.py``; ``player a.game`` and ``other_player
    a.game``; one over ``_LONGEST`` characters cut in the middle, ``_cut``), a whole command
    line still shared is prefixed by its kind (``cmd_x``, ``acpc_x``), and a name still
    taken is numbered (``#2``, ...). A spec's name depends on the other specs, never on their
    order (but for the numbering)."""
    tails = [_tails(spec) for spec in specs]
    depth = [0] * len(specs)
    while True:
        names = [t[d] for t, d in zip(tails, depth, strict=True)]
        shared = [i for i, n in enumerate(names) if names.count(n) > 1]
        longer = [i for i in shared if depth[i] + 1 < len(tails[i])]
        if not longer:
            break
        for i in longer:
            depth[i] += 1
    for i in shared:  # nothing longer to take: the spec itself
        names[i] = specs[i].replace(":", "_")
    grown = {i for i, d in enumerate(depth) if d} | set(shared)  # (a short name stays whole)
    names = [_cut(n) if i in grown else n for i, n in enumerate(names)]
    out: list[str] = []
    for name in names:
        unique, k = name, 1
        while unique in out:
            k += 1
            unique = f"{name}#{k}"
        out.append(unique)
    return out


def make(
    spec: AgentSpec, limits: Limits, name: str | None = None, resolved: dict | None = None
) -> Any:
    """A fresh agent for ``spec`` (a program is started on its first game). A champion needs
    ``resolved``: its ``genes`` and preflop factors, as read from the registry."""
    name = name or spec.text
    if spec.kind == "cmd":
        return ProgramAgent(spec.argv, limits, name)
    if spec.kind == "acpc":
        from sparring.arena.acpc_seat import AcpcProgramAgent

        return AcpcProgramAgent(spec.argv, limits, name)
    if spec.kind == "py":
        factory = getattr(importlib.import_module(spec.module), spec.attribute)
        try:
            agent = factory()
        except TypeError as exc:  # a factory parse could not read: still one line
            raise ConfigError(
                "agent", spec.text, f"a factory called with no arguments ({exc})"
            ) from None
        if not callable(getattr(agent, "act", None)):
            raise ConfigError("agent", spec.text, "an object with act(observation, legal)")
        return agent
    if spec.kind == OPENSPIEL:
        from sparring.interop.spiel_games import SpielBotAgent

        return SpielBotAgent(spec.text)
    if spec.kind == "champion":
        if resolved is None:
            raise ValueError(f"{spec.text}: its chromosome was not read from the registry")
        games = spec.games or ()
        if not games:
            raise ValueError(f"{spec.text}: no registered game declares the champion kind")
        return game_api.trait(games[0], "champion_agent")(resolved)
    if spec.text == "random":
        return RandomAgent()
    if spec.text == "first":
        return FirstAgent()
    return _house_maker(spec.text, "agent")()


class FirstAgent:
    """The first legal action, always."""

    def act(self, observation: dict[str, Any], legal: Sequence[Any]) -> Any:
        return legal[0]


class RandomAgent:
    """A uniformly random legal action, from a stream seeded by the game's seed and seat."""

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def start(self, info: dict[str, Any]) -> None:
        self.rng = random.Random(f"{info.get('seed')}/{info.get('seat')}")

    def act(self, observation: dict[str, Any], legal: Sequence[Any]) -> Any:
        return self.rng.choice(list(legal))
