"""Mus for the bridges (``sparring.interop``): the whole action set in a fixed order and a
seat's observation as a fixed-size vector of numbers.

``action_words(config)`` lists every word ``MusMatch.legal_actions()`` can offer under
``config``, each once: ``mus``, ``no_mus``, ``discard(1)`` .. ``discard(15)``, ``paso``,
``envido(min_envido)`` .. ``envido(top)``, ``ordago``, ``quiero``, ``no_quiero``,
``subir(min_raise)`` .. ``subir(top)``, where ``top`` (``top_amount``: ``max_bet``, with
``cap_bets`` at least ``min_envido``) bounds every amount ``MusState._max_amount`` offers. The
registered game has 99.

``encode(observation, config)`` reads the JSON observation of ``MusMatch.observation(seat)``
and nothing else (never the state: it can show only what the seat may know). Seats are told
relative to the observing one (0 itself, 1 the rival on its right, 2 its partner, 3 the other
rival) and teams as ours / theirs. Every value is in 0..1 (scores past the target, rarely, up to 2).
The blocks, in order (``BLOCKS``):

- ``hand`` (40): the seat's own cards; ``discarded`` (40): the cards it discarded this hand;
- ``seat`` (4, absolute), ``mano`` (4, relative), ``phase`` (4), ``lance`` (5: the lance being
  bet), ``legal`` (9: the kinds the seat may play now, all 0 when it is not to act),
  ``max_amount`` (1, / top), ``ocho_reyes`` (1);
- ``scores`` (2) / target, ``juegos`` (2) / juegos_per_vaca, ``vacas`` (2) / vacas_per_match,
  ours then theirs (each at most 2); ``hands_played`` (1, deals / 64, at most 1);
- the public history of this hand: ``mus_rounds`` (1, discard rounds / 10), ``mus_said`` (4:
  who said mus in the current round), ``cut`` (4: who said no_mus), ``last_discards`` (4: how
  many cards each seat took in the last discard round / 4), ``reshuffled`` (1),
  ``pares_declared`` and ``juego_declared`` (8 each: yes / no per seat), ``punto`` (1);
- ``bets`` (5 lances x 10): per lance, replayed from its bets as the lance plays them (both
  answers of ``pair_joint`` resolved together): pasos / 4, the stake pending / target, the
  stake accepted before the last raise / target, ordago, querido, no_quiero said / 2, refused,
  a bet waiting for its answer, last proposer ours, last proposer theirs;
- ``last_hand`` (10): the tantos each team scored in each lance of the previous hand
  (grande, chica, pares, juego, punto; ours then theirs) / target.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from sparring.mus.cards import N_CARDS
from sparring.mus.engine import DISCARD_MASKS, MusConfig, Phase
from sparring.mus.lance import Kind

LANCES = ("grande", "chica", "pares", "juego", "punto")
PHASES = tuple(p.value for p in Phase)
KINDS = tuple(k.value for k in Kind)
BET_FEATURES = 10

BLOCKS: tuple[tuple[str, int], ...] = (
    ("hand", N_CARDS),
    ("discarded", N_CARDS),
    ("seat", 4),
    ("mano", 4),
    ("phase", len(PHASES)),
    ("lance", len(LANCES)),
    ("legal", len(KINDS)),
    ("max_amount", 1),
    ("ocho_reyes", 1),
    ("scores", 2),
    ("juegos", 2),
    ("vacas", 2),
    ("hands_played", 1),
    ("mus_rounds", 1),
    ("mus_said", 4),
    ("cut", 4),
    ("last_discards", 4),
    ("reshuffled", 1),
    ("pares_declared", 8),
    ("juego_declared", 8),
    ("punto", 1),
    ("bets", len(LANCES) * BET_FEATURES),
    ("last_hand", 2 * len(LANCES)),
)
"""The blocks of the vector, in order: (name, size)."""

OFFSETS: dict[str, int] = {}
_at = 0
for _name, _size in BLOCKS:
    OFFSETS[_name] = _at
    _at += _size
SIZE = _at
"""The length of the vector (``observation_shape() == (SIZE,)``)."""

_BET = re.compile(r"^([a-z_]+)(?:\((\d+)\))?$")
_ANSWER_ORDER = {"no_quiero": 0, "quiero": 1, "subir": 2, "ordago": 3}
_HANDS_SCALE, _ROUNDS_SCALE = 64, 10


def top_amount(config: MusConfig) -> int:
    """The largest envido or subir amount the game can offer under ``config``: ``max_bet``,
    or with ``cap_bets`` (which offers at least ``min_envido``) the larger of the two."""
    return max(config.max_bet, config.min_envido) if config.cap_bets else config.max_bet


def action_words(config: MusConfig) -> tuple[str, ...]:
    """Every action word of Mus under ``config``, each once, in a fixed order (see above)."""
    top = top_amount(config)
    return (
        Kind.mus.value,
        Kind.no_mus.value,
        *(f"discard({m})" for m in DISCARD_MASKS),
        Kind.paso.value,
        *(f"envido({n})" for n in range(config.min_envido, top + 1)),
        Kind.ordago.value,
        Kind.quiero.value,
        Kind.no_quiero.value,
        *(f"subir({k})" for k in range(config.min_raise, top + 1)),
    )


class _Bets:
    """One lance's betting replayed from its public ``bet`` events, as ``lance.Lance`` plays
    them (``participants``: the seats taking part; ``joint``: both rivals answer together)."""

    def __init__(self, participants: Sequence[int], joint: bool) -> None:
        self.participants, self.joint = tuple(participants), joint
        self.pasos = self.pending = self.accepted = self.no_quieros = self.refusals = 0
        self.ordago = self.querido = self.refused = self.waiting = False
        self.proposer: int | None = None
        self.answers: list[tuple[int, str, int]] = []

    def _rivals(self) -> int:
        mine = (self.proposer or 0) % 2
        return max(sum(1 for s in self.participants if s % 2 != mine), 1)

    def bet(self, seat: int, kind: str, amount: int) -> None:
        if kind not in _ANSWER_ORDER and kind not in ("paso", "envido"):
            return  # no betting word (the engine logs none)
        if self.waiting and self.joint:
            self.answers.append((seat, kind, amount))
            if len(self.answers) < self._rivals():
                return
            seat, kind, amount = max(self.answers, key=lambda a: (_ANSWER_ORDER.get(a[1], 0), a[2]))
            self.answers = []
            if kind == "no_quiero":
                self.no_quieros += 1
                self.refused, self.waiting = True, False
                return
        if kind == "paso":
            self.pasos += 1
        elif kind == "quiero":
            self.querido, self.waiting = True, False
        elif kind == "no_quiero":
            self.no_quieros += 1
            self.refusals += 1
            if self.refusals >= self._rivals():
                self.refused, self.waiting = True, False
        else:  # envido, subir or ordago: a proposal (a raise, when one is waiting)
            if self.waiting:
                self.accepted = self.pending  # what refusing the raise pays
            if kind == "envido":
                self.pending = amount
            elif kind == "subir":
                self.pending += amount
            else:
                self.ordago = True
            self.proposer, self.waiting, self.refusals = seat, True, 0

    def features(self, seat: int, target: int) -> list[float]:
        ours = self.proposer is not None and self.proposer % 2 == seat % 2
        theirs = self.proposer is not None and not ours
        return [
            min(self.pasos, 4) / 4,
            min(self.pending, target) / target,
            min(self.accepted, target) / target,
            float(self.ordago),
            float(self.querido),
            min(self.no_quieros, 2) / 2,
            float(self.refused),
            float(self.waiting),
            float(ours),
            float(theirs),
        ]


def _hand_starts(history: Sequence[Any]) -> list[int]:
    return [i for i, event in enumerate(history) if event[0] == "deal"]


def encode(observation: dict[str, Any], config: MusConfig) -> np.ndarray:
    """The observation of one seat as ``SIZE`` float32 numbers in 0..1 (see the module
    docstring); ``config`` gives only the game's public constants (target, amounts)."""
    out = np.zeros(SIZE, dtype=np.float32)
    seat = int(observation["seat"])
    top = top_amount(config)

    def put(block: str, index: int, value: float = 1.0) -> None:
        out[OFFSETS[block] + index] = value

    def rel(other: int) -> int:
        return (int(other) - seat) % 4

    for card in observation["hand"]:
        put("hand", int(card))
    put("seat", seat)
    put("mano", rel(observation["mano"]))
    put("phase", PHASES.index(observation["phase"]))
    if observation.get("lance") is not None:
        put("lance", LANCES.index(observation["lance"]))
    for kind in observation.get("legal") or ():
        put("legal", KINDS.index(kind))
    put("max_amount", 0, min(int(observation.get("max_amount") or 0), top) / top)
    put("ocho_reyes", 0, float(bool(observation.get("ocho_reyes"))))
    for block, scale in (
        ("scores", config.target),
        ("juegos", config.juegos_per_vaca),
        ("vacas", config.vacas_per_match),
    ):
        values = observation[block]
        for i in range(2):  # ours, theirs
            put(block, i, min(int(values[(seat + i) % 2]) / scale, 2.0))

    history = observation.get("history") or []
    starts = _hand_starts(history)
    put("hands_played", 0, min(len(starts), _HANDS_SCALE) / _HANDS_SCALE)
    begin = starts[-1] if starts else 0
    _this_hand(history[begin:], seat, config, put, rel)
    if len(starts) >= 2:
        tantos = [0] * (2 * len(LANCES))
        for kind, _, detail in history[starts[-2] : starts[-1]]:
            if kind == "score" and detail[0] in LANCES:
                lance, team, paid = detail
                tantos[2 * LANCES.index(lance) + (0 if int(team) == seat % 2 else 1)] += paid
        for i, paid in enumerate(tantos):
            put("last_hand", i, min(int(paid), config.target) / config.target)
    return out


def _this_hand(events: Sequence[Any], seat: int, config: MusConfig, put: Any, rel: Any) -> None:
    """The blocks of the public history of the hand being played (from its deal on)."""
    joint = config.response_model == "pair_joint"
    declared: dict[str, set[int]] = {"pares": set(), "juego": set()}
    bets: dict[str, _Bets] = {}
    rounds, said, taken = 0, [0.0] * 4, [0.0] * 4
    for kind, who, detail in events:
        if kind == "mus":
            said[rel(who)] = 1.0
        elif kind == "no_mus":
            put("cut", rel(who))
        elif kind == "discard":
            said = [0.0] * 4  # a new round of mus decisions follows the discards
            if rel(who) == 0:
                rounds += 1
            taken[rel(who)] = min(int(detail), 4) / 4
        elif kind == "discarded_cards" and rel(who) == 0:
            for card in detail:
                put("discarded", int(card))
        elif kind == "reshuffle":
            put("reshuffled", 0)
        elif kind in ("declare_pares", "declare_juego"):
            lance = kind.removeprefix("declare_")
            put(f"{lance}_declared", 2 * rel(who) + (0 if detail else 1))
            if detail:
                declared[lance].add(int(who))
        elif kind == "punto":
            put("punto", 0)
        elif kind == "bet":
            lance, word = detail
            match = _BET.match(word)
            if lance in LANCES and match is not None:
                if lance not in bets:
                    everyone = lance not in declared
                    bets[lance] = _Bets(range(4) if everyone else sorted(declared[lance]), joint)
                bets[lance].bet(int(who), match.group(1), int(match.group(2) or 0))
    put("mus_rounds", 0, min(rounds, _ROUNDS_SCALE) / _ROUNDS_SCALE)
    for i in range(4):
        if said[i]:
            put("mus_said", i)
        put("last_discards", i, taken[i])
    for lance, state in bets.items():
        base = LANCES.index(lance) * BET_FEATURES
        for j, value in enumerate(state.features(seat, config.target)):
            put("bets", base + j, value)
