"""One conformance check for every registered game, after OpenSpiel's ``random_sim_test``.

``check_random_games(game, games, seed)`` plays random games of a ``game_api.Game`` and asserts
at every step what ``sparring.game_api`` promises (and the arena relies on):

- there are no legal actions exactly when the game is over, and ``current_player()`` is
  ``TERMINAL`` exactly then (a player ``0 .. num_players - 1`` otherwise);
- the legal actions are distinct ints (not bools) or short strings, unchanged through JSON;
- every player's observation is a dict of plain JSON values, unchanged through JSON, and shows
  no hidden information (what is hidden is the game's to say: ``game.leaks``);
- an illegal action, the game's own (``game.illegal_actions``) or any JSON value an outside
  agent could send, raises ``IllegalActionError`` and changes nothing (``game.snapshot``);
- a clone is independent: the chosen action played on the clone leaves the original as it was,
  and the original, playing it too, reaches the same state;
- the game ends within ``max_steps``, with one return per player; they sum to
  ``game.constant_sum`` when the game declares one (zero-sum games: 0), otherwise they are
  only required to be finite numbers.

``check_registered(games, seed)`` runs the check over every game of ``game_api.registered()``.
Nothing here is specific to a game.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass
from typing import Any

from sparring import game_api
from sparring.game_api import TERMINAL, Game, GameState, IllegalActionError

MAX_ACTION_TEXT = 64
"""The longest string action: actions are words, not messages."""

JUNK: tuple[object, ...] = (None, True, False, 1.5, [0], {"action": 0}, "", "x" * 200, 10**12, -1)
"""JSON values an outside agent may send in place of an action: never legal in any game."""


@dataclass
class Report:
    """What the check saw: games, steps, illegal actions refused, observations examined."""

    games: int = 0
    steps: int = 0
    refused: int = 0
    observations: int = 0


class ConformanceError(AssertionError):
    """A rule of the game API is broken; the message names the game, seed and step."""


def check_registered(games: int, seed: int = 0) -> dict[str, Report]:
    """``check_random_games`` over every registered game."""
    return {
        name: check_random_games(game_api.get(name), games, seed) for name in game_api.registered()
    }


def check_random_games(
    game: Game[Any], games: int, seed: int = 0, max_steps: int = 10_000
) -> Report:
    """Play ``games`` random games of ``game`` and check every step; raises ``ConformanceError``."""
    report = Report()
    for number in range(games):
        game_seed = seed * 1_000_003 + number
        rng = random.Random(game_seed)
        state = game.new_state(game_seed)
        if not isinstance(state, GameState):
            raise ConformanceError(f"{game.name}: new_state gave {state!r}, not a GameState")
        for step in range(max_steps):
            where = f"{game.name} game {number} (seed {game_seed}) step {step}"
            legal = _check_turn(game, state, where)
            _check_observations(game, state, where, report)
            _check_refusals(game, state, where, rng, legal, report)
            if not legal:
                _check_returns(game, state, where)
                break
            action = rng.choice(legal)
            _check_clone_and_apply(game, state, action, where)
            report.steps += 1
        else:
            raise ConformanceError(f"{game.name} game {number}: not over after {max_steps} steps")
        report.games += 1
    return report


def _check_turn(game: Game[Any], state: GameState[Any], where: str) -> list[Any]:
    legal = list(state.legal_actions())
    over, player = state.is_terminal(), state.current_player()
    if over != (not legal):
        raise ConformanceError(f"{where}: terminal={over} but {len(legal)} legal actions")
    if (player == TERMINAL) != over:
        raise ConformanceError(f"{where}: current_player()={player} with terminal={over}")
    if not over and not 0 <= player < game.num_players:
        raise ConformanceError(f"{where}: current_player()={player} is no player")
    for action in legal:  # exactly int or str: what JSON carries unchanged
        if not (type(action) is int or (type(action) is str and len(action) <= MAX_ACTION_TEXT)):
            raise ConformanceError(f"{where}: legal action {action!r} is no int or short string")
    if len(set(legal)) != len(legal):
        raise ConformanceError(f"{where}: the legal actions repeat: {legal}")
    return legal


def _check_observations(game: Game[Any], state: GameState[Any], where: str, report: Report) -> None:
    for player in range(game.num_players):
        obs = state.observation(player)
        problem = _not_plain(obs, "observation")
        if problem is None and json.loads(json.dumps(obs)) != obs:
            problem = "the observation changes through JSON"
        if problem:
            raise ConformanceError(f"{where}: player {player}: {problem}")
        leaks = game.leaks(state, player, obs)
        if leaks:
            raise ConformanceError(f"{where}: an observation shows hidden information: {leaks}")
        report.observations += 1


def _check_refusals(
    game: Game[Any],
    state: GameState[Any],
    where: str,
    rng: random.Random,
    legal: list[Any],
    report: Report,
) -> None:
    before = game.snapshot(state)
    legal_keys = {(type(a), a) for a in legal}  # True is not the action 1
    own = list(game.illegal_actions(state, rng))
    for action in [*own, *JUNK]:
        if _key(action) in legal_keys:
            if any(action is junk for junk in JUNK):
                continue
            raise ConformanceError(f"{where}: the game's illegal action {action!r} is legal")
        try:
            state.apply_action(action)
        except IllegalActionError:
            report.refused += 1
        except Exception as exc:
            raise ConformanceError(
                f"{where}: illegal action {action!r} raised {type(exc).__name__}: {exc}, "
                "not IllegalActionError"
            ) from exc
        else:
            raise ConformanceError(f"{where}: illegal action {action!r} was accepted")
        if game.snapshot(state) != before:
            raise ConformanceError(f"{where}: refusing {action!r} changed the state")


def _check_clone_and_apply(game: Game[Any], state: GameState[Any], action: Any, where: str) -> None:
    before = game.snapshot(state)
    twin = state.clone()
    if twin is state or game.snapshot(twin) != before:
        raise ConformanceError(f"{where}: clone() is not an equal copy")
    twin.apply_action(action)
    if game.snapshot(state) != before:
        raise ConformanceError(f"{where}: playing {action!r} on a clone changed the original")
    state.apply_action(action)
    if game.snapshot(state) != game.snapshot(twin):
        raise ConformanceError(f"{where}: the clone and the original differ after {action!r}")


def _check_returns(game: Game[Any], state: GameState[Any], where: str) -> None:
    returns = list(state.returns())
    numbers = all(type(r) in (int, float) and math.isfinite(r) for r in returns)
    if len(returns) != game.num_players or not numbers:
        raise ConformanceError(f"{where}: returns {returns} are not {game.num_players} numbers")
    if game.constant_sum is not None and abs(sum(returns) - game.constant_sum) > 1e-9:
        raise ConformanceError(
            f"{where}: returns {returns} sum to {sum(returns):g}, not {game.constant_sum:g}"
        )


def _key(action: object) -> tuple[type, object] | None:
    try:
        hash(action)
    except TypeError:
        return None
    return type(action), action


def _plain(value: Any) -> bool:
    """Whether ``value`` is exactly plain JSON: no tuple, enum, numpy number or dict subclass."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return True
    if kind is float:
        return math.isfinite(value)
    if kind is list:
        return all(map(_plain, value))
    if kind is dict:
        return all(type(k) is str for k in value) and all(map(_plain, value.values()))
    return False


def _not_plain(value: Any, path: str) -> str | None:
    """Where ``value`` is not plain JSON (None if it is)."""
    if _plain(value):
        return None
    if type(value) is list:
        return next(_not_plain(x, f"{path}[{i}]") for i, x in enumerate(value) if not _plain(x))
    if type(value) is dict:
        for key, x in value.items():
            if type(key) is not str:
                return f"{path} has the key {key!r}, not a str"
            if not _plain(x):
                return _not_plain(x, f"{path}[{key!r}]")
    if type(value) is float:
        return f"{path} is {value!r}, which JSON cannot carry"
    return f"{path} is a {type(value).__name__} ({value!r:.60}), not a plain JSON value"
