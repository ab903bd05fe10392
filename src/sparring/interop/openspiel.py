"""Every Sparring game as an OpenSpiel game: importing this module registers each game of
``game_api.registered()`` with pyspiel as ``python_sparring_<name>``, so that
``pyspiel.load_game("python_sparring_flagbots")`` (or ``load("flagbots")``) gives a
``pyspiel.Game`` that OpenSpiel's algorithms (MCTS, CFR, ...) and its tests play.

The bridge (``SparringGame``, ``SparringState``) plays the Sparring game itself:

- Chance. A Sparring game resolves all its chance from the seed of ``new_state(seed)``; here
  that is one explicit chance node, the initial state, whose outcomes are the seeds
  ``0 .. num_seeds - 1`` (a parameter, 64 by default), each as likely. Its outcome ``k`` makes
  the game ``new_state(k)``; every later node is a player's.
- Actions. ``game.actions()`` lists the game's whole action set in a fixed order, and an
  action's index in it is its OpenSpiel action id (``num_distinct_actions`` is its length).
- Returns are the game's ``returns()`` at the end (zero before it: rewards are terminal).
- Observations. ``observation_string(p)`` is ``json.dumps(observation(p), sort_keys=True)``
  ("" at the chance node); ``observation_tensor(p)`` is ``game.encode(observation(p))`` of
  ``game.observation_shape()`` (zeros at the chance node), offered when the game has both.
- Information states (perfect recall): ``information_state_string(p)`` lists, one per line,
  ``p``'s observation after the seed is drawn and after every later action, with ``p``'s own
  actions (``> <action as JSON>``) before the observation each of them led to. Two histories
  ``p`` cannot tell apart (the same observations and own actions) give the same string, and the
  seed itself is never in it. It is built by replaying the history the first time it is asked
  for, then kept up to date as the state (and its clones) go on.

What the game type says: sequential, explicit stochastic chance, terminal rewards; zero-sum
when the game's ``constant_sum`` is 0, constant-sum for another constant, general-sum for
``None`` (one-player Eleusis); imperfect information unless the ``Game`` declares
``perfect_information = True``.

A game joins by offering the bridge methods of ``sparring.interop`` on its ``Game``:
``actions()`` (required here), ``observation_shape()`` and ``encode(observation)`` (for the
tensor). It may also declare, as attributes or methods of no argument:

- ``perfect_information``: True when every observation shows the whole state.
- ``utility_range``: ``(lowest, highest)`` return of a seat; without it
  ``±DEFAULT_UTILITY_BOUND``.
- ``max_game_length``: the most decisions a game takes; without it the ``max_game_length``
  parameter (``DEFAULT_MAX_GAME_LENGTH`` unless set), which also overrides the game's own.

A game found to break these (a return out of its range, a game longer than its bound, a legal
action missing from ``actions()``) raises an error naming the game rather than misleading an
algorithm.

Parameters (``pyspiel.load_game("python_sparring_poker(players=3,num_seeds=8)")``):
``num_seeds``, ``max_game_length``, ``players`` (the game at another table, ``at_table``) and
``variant`` (``with_variant``, Eleusis's ``deck=...;harma=...;cap=...``). ``register(name)``
registers a game added to ``game_api`` after this import. States are not serializable
(``serialize_game_and_state``): clone them, or replay ``history()``.

The game type registered at import is known before the game's package is imported (names are
read from the registry; no engine is compiled): it declares the loose bounds (1 to
``MAX_PLAYERS`` players, imperfect information, general-sum). A loaded game's ``get_type()``
and its sizes (``num_players()``, ``max_utility()``, ...) are the exact ones, made as it is
loaded.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError:  # the optional extra: one line that says which
    raise ImportError(
        "sparring.interop.openspiel needs OpenSpiel: pip install 'sparring[openspiel]' "
        "(in a checkout: uv sync --extra openspiel)"
    ) from None

from sparring import game_api

PREFIX = "python_sparring_"
"""What a Sparring game's name is prefixed with to name it in pyspiel."""

DEFAULT_NUM_SEEDS = 64
"""The chance node's outcomes unless the ``num_seeds`` parameter says otherwise."""

DEFAULT_MAX_GAME_LENGTH = 10_000
"""The bound on a game's decisions for a game that declares none (``max_game_length``)."""

DEFAULT_UTILITY_BOUND = 1e6
"""A seat's returns lie in ±this for a game that declares no ``utility_range``."""

MAX_PLAYERS = 10
"""The most players the registered (provisional) game type allows; a loaded game's is exact."""

_PARAMETERS: dict[str, Any] = {
    "num_seeds": DEFAULT_NUM_SEEDS,
    "max_game_length": 0,
    "players": 0,
    "variant": "",
}
"""The parameters of every bridged game: ``num_seeds``, the chance node's outcomes;
``max_game_length``, 0 for the game's own bound (or ``DEFAULT_MAX_GAME_LENGTH`` when it
declares none); ``players``, 0 for the game's own number, else the game at that table
(``at_table``, poker); ``variant``, "" for none, else the game's ``with_variant`` (Eleusis)."""

BRIDGE_METHODS = ("actions", "observation_shape", "encode")
"""The bridge methods of ``sparring.interop``: ``actions`` is what OpenSpiel needs, the other
two give the observation tensor."""

_Type = pyspiel.GameType


def short_name(name: str) -> str:
    """The pyspiel name of the Sparring game ``name``."""
    return PREFIX + name


def _game_type(name: str, **exact: Any) -> Any:
    settings: dict[str, Any] = {
        "information": _Type.Information.IMPERFECT_INFORMATION,
        "utility": _Type.Utility.GENERAL_SUM,
        "max_num_players": MAX_PLAYERS,
        "min_num_players": 1,
        "provides_observation_tensor": True,
        **exact,
    }
    return pyspiel.GameType(
        short_name=short_name(name),
        long_name=f"Sparring {name}",
        dynamics=_Type.Dynamics.SEQUENTIAL,
        chance_mode=_Type.ChanceMode.EXPLICIT_STOCHASTIC,
        reward_model=_Type.RewardModel.TERMINAL,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        parameter_specification=dict(_PARAMETERS),
        **settings,
    )


def _declared(game: Any, attribute: str) -> Any:
    """What ``game`` declares as ``attribute`` (its value, or what it returns if a method), or
    None when it declares nothing."""
    value = getattr(game, attribute, None)
    return value() if callable(value) else value


def _sparring_game(name: str, players: int, variant: str) -> Any:
    """The registered game ``name``, at a table of ``players`` (0: its own) and in ``variant``
    ("": none)."""
    game: Any = game_api.get(name)
    if players and players != game.num_players:
        if not callable(getattr(game, "at_table", None)):
            raise ValueError(f"{short_name(name)} is played by {game.num_players} players only")
        game = game.at_table(players)
    if variant:
        if not callable(getattr(game, "with_variant", None)):
            raise ValueError(f"{short_name(name)} has no variants")
        game = game.with_variant(variant)
    return game


class _Bridge:
    """What every state of one loaded game shares (the Sparring game, its actions both ways);
    shared by clones, never copied."""

    def __init__(self, name: str, game: Any, num_seeds: int, max_game_length: int) -> None:
        missing = [m for m in BRIDGE_METHODS if not callable(getattr(game, m, None))]
        if "actions" in missing:
            raise TypeError(
                f"{short_name(name)}: the game {name!r} has no {', '.join(missing)} (the bridge "
                "methods of sparring.interop): OpenSpiel needs actions() to number its actions"
            )
        if num_seeds < 1:
            raise ValueError(f"{short_name(name)}: num_seeds must be >= 1, not {num_seeds}")
        self.name, self.game, self.num_seeds = short_name(name), game, num_seeds
        self.actions: tuple[Any, ...] = tuple(
            a.item() if isinstance(a, np.generic) else a for a in game.actions()
        )
        self.ids: dict[tuple[bool, Any], int] = {
            (isinstance(a, str), a): i for i, a in enumerate(self.actions)
        }
        if len(self.ids) != len(self.actions) or not self.actions:
            raise ValueError(f"{self.name}: actions() must list distinct actions, at least one")
        # the ids of legal sets seen (most games offer few distinct ones: Eleusis all 52)
        self.known_legal: dict[tuple[Any, ...], tuple[int, ...]] = {}
        # a game whose actions are small non-negative integers (FlagBots' moves) has its legal
        # actions numbered at once, by one lookup of the whole list
        self.id_of: np.ndarray | None = None
        if all(type(a) is int and 0 <= a < 1 << 20 for a in self.actions):
            self.id_of = np.full(max(self.actions) + 1, -1, np.int64)
            self.id_of[list(self.actions)] = np.arange(len(self.actions))
        self.encodes = not missing
        self.shape: tuple[int, ...] = tuple(game.observation_shape()) if self.encodes else ()
        declared = _declared(game, "max_game_length")
        self.max_game_length = int(max_game_length or declared or DEFAULT_MAX_GAME_LENGTH)
        low, high = _declared(game, "utility_range") or (
            -DEFAULT_UTILITY_BOUND,
            DEFAULT_UTILITY_BOUND,
        )
        self.utility_range = float(low), float(high)
        self.constant_sum: float | None = game.constant_sum
        self.perfect_information = bool(_declared(game, "perfect_information"))

    def __deepcopy__(self, memo: dict[int, Any]) -> _Bridge:
        return self

    def legal_ids(self, legal: list[Any]) -> list[int]:
        """The ids of ``legal`` (a state's legal actions), ascending."""
        try:
            key = tuple(legal)
            known = self.known_legal.get(key)
        except TypeError:  # (an action that cannot be hashed: numbered one by one)
            key, known = None, None
        if known is not None:
            return list(known)
        ids = self._number(legal)
        if key is not None:
            if len(self.known_legal) >= 4096:
                self.known_legal.clear()
            self.known_legal[key] = tuple(ids)
        return ids

    def _number(self, legal: list[Any]) -> list[int]:
        if self.id_of is not None and legal and all(type(a) is int for a in legal):
            moves = np.asarray(legal, np.int64)
            if moves.min() >= 0 and moves.max() < self.id_of.size:
                ids = self.id_of[moves]
                if (ids >= 0).all():
                    return np.sort(ids).tolist()
        return sorted(self.action_id(a) for a in legal)  # (raises naming an unknown action)

    def action_id(self, action: Any) -> int:
        try:
            return self.ids[isinstance(action, str), action]
        except KeyError:
            raise ValueError(
                f"{self.name}: the legal action {action!r} is not in the game's actions()"
            ) from None

    def observation_string(self, state: Any, player: int) -> str:
        return json.dumps(state.observation(player), sort_keys=True)

    def encode(self, state: Any, player: int) -> np.ndarray:
        values = np.asarray(self.game.encode(state.observation(player)), dtype=np.float32)
        if values.shape != self.shape:
            raise ValueError(
                f"{self.name}: encode gave shape {values.shape}, observation_shape() is "
                f"{self.shape}"
            )
        return values


class _Live:
    """The Sparring state of a bridged state. ``player``: the player to act as OpenSpiel
    numbers it, kept until the next action (pyspiel asks for it several times a step).

    Copied on write: pyspiel copies a Python state (``copy.deepcopy``) whenever it hands one
    to Python code, an observer's ``set_from`` at every ``observation_tensor`` included, and
    most copies are read and dropped. So a copy shares the Sparring state, counted in
    ``sharers``, and whichever of them moves first (``own``) clones it then; a copy dropped
    unmoved gives its share back (``__del__``)."""

    def __init__(self, state: Any, sharers: list[int] | None = None) -> None:
        self.state = state
        self.player: int | None = None
        self.sharers = sharers if sharers is not None else [1]

    def __deepcopy__(self, memo: dict[int, Any]) -> _Live:
        self.sharers[0] += 1
        twin = _Live(self.state, self.sharers)
        twin.player = self.player
        return twin

    def own(self) -> Any:
        """The Sparring state, this one's alone (cloned now if a copy shares it): to move."""
        if self.sharers[0] > 1:
            self.sharers[0] -= 1
            self.state, self.sharers = self.state.clone(), [1]
        return self.state

    def __del__(self) -> None:
        self.sharers[0] -= 1


class SparringGame(pyspiel.Game):
    """A Sparring game as a ``pyspiel.Game`` (see the module docstring): ``register`` makes a
    subclass of it for each game, naming the game in ``sparring_name``, which pyspiel's
    ``load_game`` calls with the game's parameters."""

    sparring_name: str = ""
    """The Sparring game's name (in ``game_api``'s registry)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        name = self.sparring_name
        params = {**_PARAMETERS, **(params or {})}
        bridge = _Bridge(
            name,
            _sparring_game(name, int(params["players"]), str(params["variant"])),
            int(params["num_seeds"]),
            int(params["max_game_length"]),
        )
        game = bridge.game
        if game.constant_sum is None:
            utility = _Type.Utility.GENERAL_SUM
        elif game.constant_sum == 0:
            utility = _Type.Utility.ZERO_SUM
        else:
            utility = _Type.Utility.CONSTANT_SUM
        information = _Type.Information.IMPERFECT_INFORMATION
        if bridge.perfect_information:
            information = _Type.Information.PERFECT_INFORMATION
        game_type = _game_type(
            name,
            information=information,
            utility=utility,
            max_num_players=game.num_players,
            min_num_players=game.num_players,
            provides_observation_tensor=bridge.encodes,
        )
        low, high = bridge.utility_range
        info = pyspiel.GameInfo(
            num_distinct_actions=len(bridge.actions),
            max_chance_outcomes=bridge.num_seeds,
            num_players=game.num_players,
            min_utility=low,
            max_utility=high,
            utility_sum=None if game.constant_sum is None else float(game.constant_sum),
            max_game_length=bridge.max_game_length,
        )
        super().__init__(game_type, info, params)
        self.bridge = bridge

    @property
    def sparring_game(self) -> Any:
        """The Sparring ``game_api.Game`` this plays."""
        return self.bridge.game

    def new_initial_state(self) -> SparringState:
        """The chance node that draws the seed."""
        return SparringState(self)

    def max_chance_nodes_in_history(self) -> int:
        return 1

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> _Observer:
        """The observer of a seat's observations (``perfect_recall``: its information
        states). Only the seat's own view is offered (public and its private information),
        or any view of a game of perfect information, where they are all the same."""
        if isinstance(iig_obs_type, dict):  # pyspiel calls f(params) for no observation type
            iig_obs_type, params = None, iig_obs_type
        if params:
            raise ValueError(f"{self.bridge.name}: observers take no parameters, not {params}")
        if iig_obs_type is None:
            return _Observer(self.bridge, recall=False)
        own_view = (
            iig_obs_type.public_info
            and iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        )
        if not own_view and not self.bridge.perfect_information:
            raise ValueError(
                f"{self.bridge.name}: a Sparring game observes for a seat (public_info and "
                "private_info SINGLE_PLAYER), not for no one or for every seat"
            )
        return _Observer(self.bridge, recall=iig_obs_type.perfect_recall)


class _Recall(list[list[str]]):
    """Each seat's record of its observations and own actions, one line each; a clone's copy
    shares the (immutable) lines."""

    def __deepcopy__(self, memo: dict[int, Any]) -> _Recall:
        return _Recall(list(seen) for seen in self)


class SparringState(pyspiel.State):
    """A state of a ``SparringGame``: the chance node that draws the seed, then the Sparring
    game's own state (see the module docstring)."""

    def __init__(self, game: SparringGame) -> None:
        super().__init__(game)
        self._bridge: _Bridge = game.bridge
        self._live: _Live | None = None  # None: the seed is still to be drawn
        self._decisions = 0
        self._recall: _Recall | None = None  # each seat's record, once one is asked for

    @property
    def sparring_state(self) -> Any:
        """The Sparring ``game_api.GameState`` (None at the chance node), to read: a clone of
        this state may share it until one of them moves (``_Live``)."""
        return None if self._live is None else self._live.state

    def current_player(self) -> int:
        live = self._live
        if live is None:
            return int(pyspiel.PlayerId.CHANCE)
        if live.player is None:
            state = live.state
            terminal = state.is_terminal()
            live.player = int(pyspiel.PlayerId.TERMINAL) if terminal else state.current_player()
        return live.player

    def _legal_actions(self, player: int) -> list[int]:
        assert self._live is not None
        return self._bridge.legal_ids(self._live.state.legal_actions())

    # Python callers (OpenSpiel's Python algorithms, a learner's loop) reach these two first:
    # the same answers as pyspiel's own, without its round trip through C++ (which also copies
    # the state to hand it to the observer). C++ callers keep pyspiel's path.
    def legal_actions(self, player: int | None = None) -> list[int]:
        """The legal action ids of ``player`` (default: the player to act), ascending, as
        pyspiel's ``State::LegalActions(player)`` says: none once the game is over, the seeds
        at the chance node (whoever asks), none for a player not to act."""
        to_act = self.current_player()
        if to_act == pyspiel.PlayerId.TERMINAL:
            return []
        if to_act == pyspiel.PlayerId.CHANCE:
            return list(range(self._bridge.num_seeds))
        if player is not None and player != to_act:
            return []
        return self._legal_actions(to_act)

    def observation_tensor(self, player: int | None = None) -> list[float]:
        """``player``'s observation as the flat list pyspiel gives: the game's ``encode`` of
        its observation (zeros at the chance node)."""
        bridge = self._bridge
        if not bridge.encodes:
            return list(super().observation_tensor(*(() if player is None else (player,))))
        if player is None:
            player = self.current_player()
        if not 0 <= player < self.num_players():
            raise pyspiel.SpielError(f"observation_tensor: no player {player}")
        if self._live is None:
            return [0.0] * math.prod(bridge.shape)
        return bridge.encode(self._live.state, player).reshape(-1).tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        n = self._bridge.num_seeds
        return [(seed, 1.0 / n) for seed in range(n)]

    def _apply_action(self, action: int) -> None:
        bridge = self._bridge
        if self._live is None:
            self._live = _Live(bridge.game.new_state(int(action)))
            if self._recall is not None:
                for p, seen in enumerate(self._recall):
                    seen.append(bridge.observation_string(self._live.state, p))
            return
        if self._decisions >= bridge.max_game_length:
            raise ValueError(
                f"{bridge.name}: the game goes on past max_game_length={bridge.max_game_length}"
                f"; load it with a larger max_game_length"
            )
        state = self._live.own()
        player, move = state.current_player(), bridge.actions[action]
        state.apply_action(move)
        self._live.player = None
        self._decisions += 1
        if self._recall is not None:
            self._remember(state, player, move, self._recall)

    def _remember(self, state: Any, player: int, move: Any, recall: _Recall) -> None:
        """Add to every seat's record what it saw of ``player``'s ``move`` (now played)."""
        for p, seen in enumerate(recall):
            if p == player:
                seen.append(f"> {json.dumps(move)}")
            seen.append(self._bridge.observation_string(state, p))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed {action}"
        return str(self._bridge.actions[action])

    def is_terminal(self) -> bool:
        return self._live is not None and bool(self._live.state.is_terminal())

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.num_players()
        assert self._live is not None
        values = [float(r) for r in self._live.state.returns()]
        low, high = self._bridge.utility_range
        if not all(low <= r <= high for r in values) or not all(map(math.isfinite, values)):
            raise ValueError(
                f"{self._bridge.name}: returns {values} lie outside the game's utility range "
                f"[{low}, {high}] (declare utility_range on the game)"
            )
        return values

    def observation_string_of(self, player: int) -> str:
        """``player``'s observation as text ("" at the chance node)."""
        if self._live is None:
            return ""
        return self._bridge.observation_string(self._live.state, player)

    def information_state_of(self, player: int) -> str:
        """``player``'s information state as text (see the module docstring)."""
        if self._recall is None:
            self._recall = self._replay()
        return "\n".join(self._recall[player])

    def _replay(self) -> _Recall:
        """Every seat's record, from the seed and the actions of this state's history."""
        history: Sequence[int] = self.history()
        if not history:
            return _Recall([] for _ in range(self.num_players()))
        bridge = self._bridge
        state = bridge.game.new_state(int(history[0]))
        recall = _Recall([bridge.observation_string(state, p)] for p in range(self.num_players()))
        for action in history[1:]:
            player, move = state.current_player(), bridge.actions[action]
            state.apply_action(move)
            self._remember(state, player, move, recall)
        return recall

    def __str__(self) -> str:
        history = self.history()
        if not history:
            return f"the seed is to be drawn (of {self._bridge.num_seeds})"
        actions = " ".join(str(self._bridge.actions[a]) for a in history[1:])
        return f"seed {history[0]}: {actions}".rstrip()


class _Observer:
    """A seat's observations (``recall``: its information states), as pyspiel's Python
    observers are (``tensor``, ``dict``, ``set_from``, ``string_from``)."""

    def __init__(self, bridge: _Bridge, recall: bool) -> None:
        self._bridge, self._recall = bridge, recall
        self.tensor: np.ndarray | None = None
        self.dict: dict[str, np.ndarray] = {}
        if bridge.encodes and not recall:
            self.tensor = np.zeros(math.prod(bridge.shape), np.float32)
            self.dict["observation"] = self.tensor.reshape(bridge.shape)

    def set_from(self, state: SparringState, player: int) -> None:
        if self.tensor is None:
            return
        live = state.sparring_state
        if live is None:
            self.tensor.fill(0.0)
        else:
            self.dict["observation"][...] = self._bridge.encode(live, player)

    def string_from(self, state: SparringState, player: int) -> str:
        if self._recall:
            return state.information_state_of(player)
        return state.observation_string_of(player)


_REGISTERED: dict[str, type[SparringGame]] = {}


def register(name: str) -> str:
    """Register the Sparring game ``name`` with pyspiel (once; the game is imported only when
    it is loaded) and give its pyspiel name."""
    if name not in _REGISTERED:
        # pyspiel keeps what makes the game until after Python has shut down: a class (never
        # freed, as a closure would be then, which aborts the interpreter's exit)
        maker = type(f"SparringGame_{name}", (SparringGame,), {"sparring_name": name})
        _REGISTERED[name] = maker
        pyspiel.register_game(_game_type(name), maker)
    return short_name(name)


def register_all() -> list[str]:
    """Register every game of ``game_api.registered()`` (see ``register``); their pyspiel
    names."""
    return [register(name) for name in game_api.registered()]


def load(name: str, **params: Any) -> SparringGame:
    """The Sparring game ``name`` as a pyspiel game (registered now if it was not yet), with
    ``params`` (``num_seeds``, ``max_game_length``)."""
    game: SparringGame = pyspiel.load_game(register(name), params)
    return game


register_all()
