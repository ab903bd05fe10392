"""Mus through ``sparring.game_api``: a match of the engine with words for actions and plain
JSON for observations.

``Mus(config).new_state(seed)`` is a ``MusMatch``, a ``game_api.GameState`` over the engine's
``MusState`` (``match.state``, unchanged and still usable by the engine's players):

- actions are words: ``mus``, ``no_mus``, ``paso``, ``quiero``, ``no_quiero``, ``ordago``, and
  with their amount ``envido(n)``, ``subir(k)`` and ``discard(mask)`` (bit i = card i of the
  hand, 1..15);
- ``observation(seat)`` is the engine's (specs/mus.md §13: the seat's own cards, the public
  history and the events shown to it) as plain JSON: tuples become lists, cards stay the ints of
  ``mus.cards``;
- ``returns()``: +1 to the winning team's seats, -1 to the others (zero-sum); chance (deals,
  reshuffles) comes from the seed's stream inside the engine.

For the bridges (``sparring.interop``), ``Mus`` offers ``actions()`` (every word, in a fixed
order: its index is the action's id), ``observation_shape()`` and ``encode(observation)`` (an
observation as numbers, from the observation alone): ``mus.encoding`` says what they hold.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Hashable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from sparring.game_api import Game
from sparring.mus import encoding
from sparring.mus.engine import DISCARD, MusConfig, MusGame, MusState
from sparring.mus.lance import ENVIDO, SUBIR, Action, IllegalActionError, Kind
from sparring.mus.traits import MusTraits

_WITH_AMOUNT = (DISCARD, ENVIDO, SUBIR)
_WORD = re.compile(r"^([a-z_]+)(?:\((\d{1,6})\))?$")
_KINDS = frozenset(k.value for k in Kind)


@lru_cache(maxsize=4096)  # a few hundred distinct actions, each asked for thousands of times
def action_text(action: Action) -> str:
    """The word of an engine action: ``envido(2)``, ``discard(5)``, ``quiero``."""
    return f"{action.kind}({action.amount})" if action.kind in _WITH_AMOUNT else str(action.kind)


def parse_action(text: object) -> Action:
    """The engine action a word names; ``IllegalActionError`` for anything that is not one."""
    match = _WORD.match(text) if isinstance(text, str) else None
    if match is None or match.group(1) not in _KINDS:
        raise IllegalActionError(f"{text!r} is not a Mus action")
    kind, amount = match.group(1), match.group(2)
    if (amount is not None) != (kind in _WITH_AMOUNT):
        raise IllegalActionError(f"{text!r}: only discard, envido and subir take an amount")
    return Action(kind, int(amount or 0))


def _plain(value: Any) -> Any:
    if isinstance(value, np.integer | np.bool_):
        return value.item()
    raise TypeError(f"{value!r} has no JSON form")


class MusMatch:
    """A Mus match as a ``game_api.GameState`` (see the module docstring)."""

    def __init__(self, state: MusState) -> None:
        self.state = state
        self._events_json: list[str] = []  # each event's JSON text, encoded once
        self._seen: dict[int, tuple[int, list[str]]] = {}  # player -> (events read, visible)
        self._legal: list[str] | None = None  # until the next action

    def current_player(self) -> int:
        return self.state.current_player()

    def legal_actions(self) -> list[str]:
        if self._legal is None:
            self._legal = [action_text(a) for a in self.state.legal_actions()]
        return list(self._legal)

    def apply_action(self, action: str) -> None:
        engine_action = parse_action(action)  # refuses what is no Mus word at all
        if action not in self.legal_actions():
            raise IllegalActionError(f"{action} is not allowed now")
        self.state.apply_action(engine_action)
        self._legal = None

    def is_terminal(self) -> bool:
        return self.state.is_terminal()

    def returns(self) -> list[float]:
        return self.state.returns()

    def observation(self, player: int) -> dict[str, Any]:
        """The engine's observation of ``player`` in plain JSON (history included)."""
        # dict.copy skips Observation's lazy history: it is built here from the encoded events
        fields = dict.copy(self.state.observation(player))
        fields.pop("history", None)
        events = self.state.events
        for e in events[len(self._events_json) :]:
            self._events_json.append(json.dumps([e.kind, e.seat, e.detail], default=_plain))
        read, visible = self._seen.get(player, (0, []))
        visible = visible + [
            text
            for e, text in zip(events[read:], self._events_json[read:], strict=True)
            if e.visible_to is None or player in e.visible_to
        ]
        self._seen[player] = (len(events), visible)
        seen = ",".join(visible)
        head = json.dumps(fields, default=_plain)
        return json.loads(f'{head[:-1]}, "history": [{seen}]}}')

    def clone(self) -> MusMatch:
        # events are never changed once appended: the copy shares them, and the config
        memo: dict[int, Any] = {id(self.state.events): list(self.state.events)}
        memo[id(self.state.config)] = self.state.config
        other = MusMatch(copy.deepcopy(self.state, memo))
        other._events_json = list(self._events_json)
        other._seen = dict(self._seen)  # (count, list) pairs: each list is replaced, not grown
        return other


class Mus(MusTraits):
    """Mus as a ``game_api.Game``: four seats (teams 0-2 and 1-3, ``mus.traits``), zero-sum."""

    name = "mus"
    num_players = 4
    constant_sum = 0.0

    def __init__(self, config: MusConfig | None = None) -> None:
        self.game = MusGame(config)

    def new_state(self, seed: int) -> MusMatch:
        return MusMatch(self.game.new_initial_state(seed))

    # The bridges' methods (``sparring.interop``): see ``mus.encoding``.
    def actions(self) -> tuple[str, ...]:
        """Every action word this Mus can offer, each once, in a fixed order."""
        return encoding.action_words(self.game.config)

    def observation_shape(self) -> tuple[int, ...]:
        return (encoding.SIZE,)

    def encode(self, observation: dict[str, Any]) -> np.ndarray:
        """``observation`` (``MusMatch.observation(seat)``, alone) as float32 numbers."""
        return encoding.encode(observation, self.game.config)

    def snapshot(self, match: MusMatch) -> Hashable:
        state = match.state
        return (
            state.phase,
            tuple(map(tuple, state.hands)),
            tuple(state.stock),
            tuple(state.pile),
            tuple(state.scores),
            tuple(state.juegos),
            tuple(state.vacas),
            tuple(state.queue),
            state.dealer,
            len(state.events),
            None if state.lance is None else repr(state.lance),
            repr(state.rng.bit_generator.state),
        )

    def illegal_actions(self, match: MusMatch, rng: random.Random) -> Sequence[object]:
        legal = set(match.legal_actions())
        pool = [
            "mus",
            "no_mus",
            "discard(0)",
            "discard(16)",
            "quiero",
            "envido(1)",
            "envido(10000)",
            "ordago",
            "envido",
            "mus(1)",
            "Quiero",
        ]
        return [a for a in pool if a not in legal][:5]

    def leaks(self, match: MusMatch, player: int, observation: dict[str, Any]) -> list[str]:
        """The seat sees its own hand and exactly the events public or shown to it (with
        their cards, for those shown to it alone)."""
        state, found = match.state, []
        if observation.get("hand") != list(state.hands[player]):
            found.append(f"seat {player} is shown a hand that is not its own")
        allowed = [e for e in state.events if e.visible_to is None or player in e.visible_to]
        history = observation.get("history") or []
        if [[e.kind, e.seat] for e in allowed] != [h[:2] for h in history]:
            found.append(f"seat {player}'s history is not the events it may see")
        elif any(
            e.visible_to is not None and list(e.detail) != h[2]
            for e, h in zip(allowed, history, strict=True)
        ):
            found.append(f"seat {player}'s history shows cards it was not shown")
        return found


GAME: Game[str] = Mus()
"""The registered Mus: the recommended variants of specs/mus.md §0, a match to 40."""
