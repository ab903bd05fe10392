"""Any OpenSpiel game as a Sparring game, and OpenSpiel's bots as agents: the other direction
from ``interop.openspiel`` (which makes Sparring's games pyspiel games).

The games are the registry's ``openspiel`` family (``sparring.games.FAMILIES``):
``game_api.get("openspiel:connect_four")`` is ``spiel_game("connect_four")``, and the rest of
the name is any pyspiel game string, parameters and all (``openspiel:leduc_poker(players=2)``).
A ``SpielGame`` keeps ``game_api``'s promises over the pyspiel game:

- Chance is never a player: ``new_state(seed)`` gives the state its own random stream (numpy's
  ``default_rng(seed)``), from which every chance node, at the start and after each action, is
  sampled by its ``chance_outcomes()``; so a game is a pure function of (seed, actions), and a
  clone goes on with a copy of the stream.
- Actions are pyspiel's ints; anything else (a bool, a str, a float, an action not legal now)
  raises ``IllegalActionError`` and changes nothing.
- ``observation(player)`` is ``{"observation": observation_string(player)}`` (the information
  state string for a game that provides only that), and in a game of perfect information also
  ``"history"``: every action so far, chance outcomes included (all public there), from which
  a bot rebuilds the pyspiel state.
- ``constant_sum`` is 0 for a zero-sum game, the game's utility sum for a constant-sum one, else
  None. A deterministic game (tic-tac-toe, connect four: no chance to vary a unit's start)
  declares ``opening_plies`` (``OPENING_PLIES``, as FlagBots does); every game declares the
  agent kind ``openspiel`` (``agent_kinds``), which its bots below play.

A name pyspiel does not know, a parameter it refuses, a simultaneous-move or mean-field game and
a game whose chance is only sampled are refused by ``spiel_game`` in one line (a ValueError),
which ``game_api.refusal`` shows the user before any work.

The bots (the arena's agent kind ``openspiel``), spec ``openspiel:<bot>[:<param>=<value>,...]``
(``FORMS``): ``openspiel:uniform_random[:seed=<n>]``, OpenSpiel's ``UniformRandomBot``, in any
of these games; ``openspiel:mcts[:simulations=<n>,uct_c=<c>,rollouts=<n>,seed=<n>]``, its
``MCTSBot`` (``simulations`` per move, 100 by default; exploration ``uct_c``, 2; a
``RandomRolloutEvaluator`` of ``rollouts`` random playouts, 1), in a game of perfect
information with terminal rewards (``misfit`` says why another is refused). A bot's random
stream is seeded by the spec's ``seed`` and the seed of the arena's start message, so its play
is a function of the two. At each decision it rebuilds the pyspiel state by replaying the
observation's ``history`` (uniform_random needs only the legal actions, so it plays games of
imperfect information too).

pyspiel is imported only when a game is made or a bot starts: reading a spec needs none.
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import json
import math
import os
import random
import re
import sys
import tempfile
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from sparring.game_api import TERMINAL, IllegalActionError

FAMILY = "openspiel"
"""The registry's prefix of these games (``openspiel:<game>``)."""

KIND = "openspiel"
"""The arena's agent kind of the bots (``openspiel:<bot>...``), which every game here plays."""

OPENING_PLIES = 2
"""Random plies before a unit's games in a deterministic game (the arena's ``opening_plies``)."""


def _pyspiel() -> Any:
    try:
        import pyspiel
    except ImportError:  # the optional extra: one line that says which
        raise ImportError(
            "OpenSpiel's games and bots need OpenSpiel: pip install 'sparring[openspiel]' "
            "(in a checkout: uv sync --extra openspiel)"
        ) from None
    return pyspiel


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """OpenSpiel prints every error it raises on the process's stderr as well: kept out of
    what the user reads (the error itself says it, in one line)."""
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no stderr to keep quiet
        yield
        return
    try:
        with tempfile.TemporaryFile() as sink:
            os.dup2(sink.fileno(), 2)
            try:
                yield
            finally:
                os.dup2(saved, 2)
    finally:
        os.close(saved)


_WHERE = re.compile(r"^\S+\.(?:cc|h):\d+\s+")  # where in OpenSpiel's C++ an error was raised


@cache
def load(game_string: str) -> Any:
    """The pyspiel game of ``game_string`` (loaded once in a process; pyspiel's games are
    immutable), or a ValueError in one line saying what OpenSpiel refused."""
    pyspiel = _pyspiel()
    short = game_string.partition("(")[0].strip()
    names = list(pyspiel.registered_names())
    if short not in names:
        close = difflib.get_close_matches(short, names, n=3)
        hint = f"close: {', '.join(close)}" if close else "pyspiel.registered_names() lists them"
        raise ValueError(f"OpenSpiel has no game {short!r} ({hint})")
    try:
        with _quiet_stderr():
            return pyspiel.load_game(game_string)
    except pyspiel.SpielError as exc:
        lines = [_WHERE.sub("", line).strip() for line in str(exc).splitlines()]
        said = "; ".join(line for line in lines if line)
        raise ValueError(f"OpenSpiel refuses {game_string!r}: {said}") from None
    except (RuntimeError, IndexError, KeyError, TypeError) as exc:
        # a C++ exception of OpenSpiel's own loader that pybind11 turns into a built-in one
        # (a game that needs parameters it has no defaults for says `map::at`)
        said = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}".rstrip(": ")
        raise ValueError(f"OpenSpiel cannot load {game_string!r} ({said})") from None


def spiel_game(game_string: str) -> SpielGame:
    """The family's maker: the Sparring game ``openspiel:<game_string>``; a ValueError in one
    line for a game whose first decision cannot list its actions (crossword's are structs)."""
    game = load(game_string)
    state = game.new_initial_state()
    if not state.is_chance_node() and not state.is_terminal():
        try:
            with _quiet_stderr():
                state.legal_actions()
        except _pyspiel().SpielError as exc:
            said = _WHERE.sub("", str(exc).splitlines()[0]).strip()
            raise ValueError(f"OpenSpiel's {game_string!r} lists no actions: {said}") from None
    return SpielGame(game_string, game)


class SpielGame:
    """A pyspiel game as a ``game_api.Game`` (see the module docstring)."""

    agent_kinds: tuple[str, ...] = (KIND,)

    def __init__(self, game_string: str, spiel: Any) -> None:
        types = _pyspiel().GameType
        kind = spiel.get_type()
        name = f"{FAMILY}:{game_string}"
        if kind.dynamics != types.Dynamics.SEQUENTIAL:
            dynamics = {types.Dynamics.SIMULTANEOUS: "simultaneous-move"}.get(
                kind.dynamics, kind.dynamics.name.lower().replace("_", "-")
            )
            raise ValueError(f"OpenSpiel's {kind.short_name} is a {dynamics} game, not a game "
                             f"of turns")  # fmt: skip
        if kind.chance_mode == types.ChanceMode.SAMPLED_STOCHASTIC:
            raise ValueError(f"OpenSpiel's {kind.short_name} only samples its chance outcomes; "
                             f"a game here lists them")  # fmt: skip
        self.name, self.game_string, self.spiel = name, game_string, spiel
        self.num_players: int = spiel.num_players()
        self.num_actions: int = spiel.num_distinct_actions()
        self.constant_sum: float | None = None
        if kind.utility == types.Utility.ZERO_SUM:
            self.constant_sum = 0.0
        elif kind.utility == types.Utility.CONSTANT_SUM:
            self.constant_sum = float(spiel.utility_sum())
        self.perfect_information = kind.information == types.Information.PERFECT_INFORMATION
        self.terminal_rewards = kind.reward_model == types.RewardModel.TERMINAL
        self.opening_plies = (
            OPENING_PLIES if kind.chance_mode == types.ChanceMode.DETERMINISTIC else 0
        )
        self.observes: str | None = None  # the pyspiel method of the seat's text
        if kind.provides_observation_string:
            self.observes = "observation_string"
        elif kind.provides_information_state_string:
            self.observes = "information_state_string"

    def new_state(self, seed: int) -> SpielState:
        state = SpielState(self, self.spiel.new_initial_state(), np.random.default_rng(int(seed)))
        state.resolve_chance()
        return state

    def snapshot(self, state: SpielState) -> Hashable:
        """The history (chance outcomes too: the whole pyspiel state) and the random stream."""
        stream = json.dumps(state.rng.bit_generator.state, sort_keys=True)
        return tuple(state.spiel_state.history()), stream

    def illegal_actions(self, state: SpielState, rng: random.Random) -> Sequence[object]:
        legal = state.legal_actions()
        others = [a for a in range(self.num_actions) if a not in legal]
        some = legal[0] if legal else 0
        picked = [rng.choice(others)] if others else []
        return [*picked, self.num_actions, -2, str(some), float(some)]

    def leaks(self, state: SpielState, player: int, observation: dict[str, Any]) -> list[str]:
        """OpenSpiel's observations show a seat what it may know; the history is shown only in
        a game of perfect information."""
        return ["history"] if "history" in observation and not self.perfect_information else []


class SpielState:
    """A state of a ``SpielGame``: the pyspiel state, never at a chance node, and its stream."""

    def __init__(self, game: SpielGame, state: Any, rng: np.random.Generator) -> None:
        self.game, self.spiel_state, self.rng = game, state, rng

    def resolve_chance(self) -> None:
        """Sample every chance node from here on from the state's own stream."""
        state = self.spiel_state
        while state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            total = np.cumsum(np.asarray(probabilities, dtype=float))
            k = int(np.searchsorted(total, self.rng.random() * total[-1], side="right"))
            state.apply_action(int(outcomes[min(k, len(outcomes) - 1)]))

    def current_player(self) -> int:
        state = self.spiel_state
        return TERMINAL if state.is_terminal() else int(state.current_player())

    def legal_actions(self) -> list[int]:
        state = self.spiel_state
        return [] if state.is_terminal() else [int(a) for a in state.legal_actions()]

    def apply_action(self, action: int) -> None:
        legal = self.legal_actions()
        if type(action) is not int or action not in legal:  # (a bool is no action)
            shown = legal if len(legal) <= 12 else [*legal[:12], "..."]
            raise IllegalActionError(f"{action!r} is not a legal action of {self.game.name} "
                                     f"now (legal: {shown})")  # fmt: skip
        self.spiel_state.apply_action(action)
        self.resolve_chance()

    def is_terminal(self) -> bool:
        return bool(self.spiel_state.is_terminal())

    def returns(self) -> list[float]:
        return [float(r) for r in self.spiel_state.returns()]

    def observation(self, player: int) -> dict[str, Any]:
        if not 0 <= player < self.game.num_players:
            raise ValueError(f"{self.game.name} has no player {player}")
        seen: dict[str, Any] = {}
        if self.game.observes is not None:
            seen["observation"] = str(getattr(self.spiel_state, self.game.observes)(player))
        if self.game.perfect_information:
            seen["history"] = [int(a) for a in self.spiel_state.history()]
        return seen

    def clone(self) -> SpielState:
        return SpielState(self.game, self.spiel_state.clone(), copy.deepcopy(self.rng))

    def move_text(self, action: int) -> str:
        """The action as OpenSpiel writes it (``games.txt``): tic-tac-toe's ``x(1,1)``."""
        return str(self.spiel_state.action_to_string(self.spiel_state.current_player(), action))


# --- the bots ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Param:
    """A bot's parameter: its type, its bounds and its default."""

    kind: type
    low: float
    high: float
    default: int | float
    above: bool = False  # the low bound itself is excluded (uct_c > 0)

    @property
    def placeholder(self) -> str:
        return "n" if self.kind is int else "x"

    def read(self, bot: str, key: str, text: str) -> int | float:
        try:
            value = self.kind(text)
        except ValueError:
            value = None
        ok = value is not None and math.isfinite(value) and self.low <= value <= self.high
        if not ok or (self.above and value == self.low):
            low, high = (
                (int(self.low), int(self.high)) if self.kind is int else (self.low, self.high)
            )
            bound = f"> {low}" if self.above else f"in {low}..{high}"
            what = "an integer" if self.kind is int else "a number"
            raise ValueError(f"openspiel:{bot}: {key}={text} is not {what} {bound}")
        assert value is not None
        return value


BOTS: dict[str, dict[str, _Param]] = {
    "uniform_random": {"seed": _Param(int, 0, 2**63 - 1, 0)},
    "mcts": {
        "simulations": _Param(int, 1, 1_000_000, 100),
        "uct_c": _Param(float, 0, 1e6, 2.0, above=True),
        "rollouts": _Param(int, 1, 10_000, 1),
        "seed": _Param(int, 0, 2**63 - 1, 0),
    },
}
"""Each bot's parameters (``openspiel:<bot>:<param>=<value>,...``)."""

FORMS: tuple[str, ...] = tuple(
    f"{KIND}:{bot}[:{','.join(f'{key}=<{p.placeholder}>' for key, p in params.items())}]"
    for bot, params in BOTS.items()
)
"""The spec forms, as an error lists them."""

_SPEC = re.compile(rf"^{KIND}:(\w+)(?::(.*))?$")


def parse_bot(text: str) -> tuple[str, dict[str, Any]]:
    """A bot's spec read: its name and every parameter (the defaults where not given), or a
    ValueError saying what is expected."""
    match = _SPEC.match(text.strip())
    if not match or match.group(1) not in BOTS:
        raise ValueError(f"an OpenSpiel bot: {' or '.join(FORMS)}")
    bot, rest = match.groups()
    params: dict[str, Any] = {key: p.default for key, p in BOTS[bot].items()}
    if rest is None:
        return bot, params
    given: set[str] = set()
    for item in rest.split(","):
        key, equals, value = (part.strip() for part in item.partition("="))
        if key not in BOTS[bot] or not equals or key in given:
            known = ", ".join(BOTS[bot])
            raise ValueError(f"openspiel:{bot}:<param>=<value>,... with each param once, one "
                             f"of {known} (not {item.strip()!r})")  # fmt: skip
        given.add(key)
        params[key] = BOTS[bot][key].read(bot, key, value)
    return bot, params


def misfit(text: str, game: Any) -> str | None:
    """Why the bot of spec ``text`` cannot play the ``SpielGame`` ``game`` (None: it can)."""
    bot, _ = parse_bot(text)
    if bot != "mcts":
        return None
    if not getattr(game, "perfect_information", False):
        return (f"MCTS searches the whole state: a game of perfect information, which "
                f"{game.name} is not; {KIND}:uniform_random plays any")  # fmt: skip
    if not getattr(game, "terminal_rewards", False):
        return f"MCTS needs a game rewarded at its end, which {game.name} is not"
    return None


class _Legal:
    """What OpenSpiel's ``UniformRandomBot`` reads of a state (its legal actions), for a seat
    that cannot rebuild the state (a game of imperfect information)."""

    def __init__(self, player: int, legal: Sequence[int]) -> None:
        self._player, self._legal = player, [int(a) for a in legal]

    def current_player(self) -> int:
        return self._player

    def legal_actions(self, player: int | None = None) -> list[int]:
        return list(self._legal)


class SpielBotAgent:
    """An OpenSpiel bot as an arena agent (``openspiel:<bot>...``; see the module docstring):
    ``start`` reads the game from the start message and seeds the bot, ``act`` rebuilds the
    state from the observation's history and asks the bot."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.bot, self.params = parse_bot(text)
        self._game: SpielGame | None = None
        self._seat = 0
        self._player: Any = None

    def start(self, info: dict[str, Any]) -> None:
        name = str(info.get("game", ""))
        prefix, _, game_string = name.partition(":")
        if prefix != FAMILY or not game_string:
            raise ValueError(f"{self.text} plays OpenSpiel's games ({FAMILY}:<game>), not {name}")
        if self._game is None or self._game.name != name:
            self._game = spiel_game(game_string)
        game = self._game
        why = misfit(self.text, game)
        if why:
            raise ValueError(f"{self.text}: {why}")
        self._seat = int(info.get("seat", 0))
        entropy = [int(self.params["seed"]), abs(int(info.get("seed") or 0))]
        rng = np.random.RandomState(np.random.MT19937(np.random.SeedSequence(entropy)))
        if self.bot == "mcts":
            from open_spiel.python.algorithms import mcts

            evaluator = mcts.RandomRolloutEvaluator(self.params["rollouts"], rng)
            self._player = mcts.MCTSBot(game.spiel, self.params["uct_c"],
                                        self.params["simulations"], evaluator,
                                        random_state=rng, solve=True)  # fmt: skip
        else:
            from open_spiel.python.bots import uniform_random

            self._player = uniform_random.UniformRandomBot(self._seat, rng)

    def act(self, observation: dict[str, Any], legal: Sequence[Any]) -> int:
        if self._player is None or self._game is None:
            raise ValueError(f"{self.text}: start(info) names the game before the first act")
        history = observation.get("history")
        state: Any
        if history is None:  # (uniform_random: misfit refuses MCTS in such a game)
            state = _Legal(self._seat, legal)
        else:
            state = self._game.spiel.new_initial_state()
            for action in history:
                state.apply_action(int(action))
        return int(self._player.step(state))
