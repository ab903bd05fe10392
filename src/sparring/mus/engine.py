"""The Mus hand engine with an OpenSpiel-style API (specs/mus.md §3–§12).

``MusGame(config).new_initial_state(seed)`` gives a ``MusState`` with ``current_player()``,
``legal_actions()``, ``apply_action()``, ``observation(seat)``, ``is_terminal()`` and
``returns()``. Rule checks live in one place (``_check``), used by both ``legal_actions`` and
``apply_action``; an illegal action raises ``IllegalActionError`` and changes nothing.

Phases: mus decisions → (discards → redraw → mus decisions)* → grande → chica → pares → juego or
punto → reveal and count → next hand, until a team wins the match.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any

import numpy as np

from sparring.game_api import TERMINAL
from sparring.mus.cards import FACES, N_CARDS
from sparring.mus.lance import (
    ORDAGO_QUERIDO,
    Action,
    IllegalActionError,
    Kind,
    Lance,
    team,
)
from sparring.mus.scoring import Count, Table, count_hand


class Phase(StrEnum):
    """Where a hand stands (reads and logs as these words)."""

    mus_decision = "mus_decision"
    discard = "discard"
    betting = "betting"
    match_over = "match_over"


MUS, NO_MUS, DISCARD = Kind.mus, Kind.no_mus, Kind.discard
MUS_DECISION, DISCARDING, BETTING, MATCH_OVER = (
    Phase.mus_decision,
    Phase.discard,
    Phase.betting,
    Phase.match_over,
)
DISCARD_MASKS = tuple(m for m in range(1, 16))  # which of the 4 cards (bit i = card i)


class DiscardOrder(StrEnum):
    """Who discards first after mus: the mano, or the postre (§0 V5)."""

    mano_first = "mano_first"
    postre_first = "postre_first"


class Reshuffle(StrEnum):
    """What is reshuffled when the deck runs out during discards (§0 V6)."""

    all_discards = "all_discards"
    keep_last_players_own = "keep_last_players_own"


class RejectedRaise(StrEnum):
    """What a rejected raise pays (§0 V8)."""

    previous_stake = "previous_stake"
    fem_plus_deje = "fem_plus_deje"


class ResponseModel(StrEnum):
    """How the two partners answer a bet: one after the other, or jointly (§0 V12)."""

    sequential = "sequential"
    pair_joint = "pair_joint"


@dataclass(frozen=True)
class MusConfig:
    """Every variant of §0 (defaults = the recommended ones)."""

    ocho_reyes: bool = True
    target: int = 40
    juegos_per_vaca: int = 3
    vacas_per_match: int = 1
    discard_order: DiscardOrder = DiscardOrder.mano_first
    reshuffle: Reshuffle = Reshuffle.all_discards
    rejected_raise: RejectedRaise = RejectedRaise.previous_stake
    min_envido: int = 2
    min_raise: int = 2
    treinta_y_una_real: bool = False
    end_on_target_immediately: bool = True
    first_hand_mus_corrido: bool = False
    response_model: ResponseModel = ResponseModel.sequential
    max_mus_rounds: int | None = 20  # safety cap for simulation (None = unlimited, FEM)
    cap_bets: bool = False
    reveal_at_end: bool = True
    max_bet: int = 40  # largest envido/subir amount offered by legal_actions()

    def __post_init__(self) -> None:
        """Choices become their enums (a misspelt one is refused, never played as another);
        counts must be positive. Raises ValueError naming the field and what is allowed."""
        for f in fields(self):
            value = getattr(self, f.name)
            choice = _CHOICES.get(f.name)
            if choice is not None:
                try:
                    object.__setattr__(self, f.name, choice(value))
                except ValueError:
                    allowed = ", ".join(c.value for c in choice)
                    raise ValueError(
                        f"{f.name}={value!r} is not allowed: expected one of {allowed}"
                    ) from None
            elif isinstance(value, bool) or f.name in _OPTIONAL:
                continue
            elif isinstance(value, int) and value < 1:
                raise ValueError(f"{f.name}={value} is not allowed: expected an integer >= 1")
        if self.max_mus_rounds is not None and self.max_mus_rounds < 1:
            raise ValueError(f"max_mus_rounds={self.max_mus_rounds}: expected None or >= 1")


_CHOICES: dict[str, type[StrEnum]] = {
    "discard_order": DiscardOrder,
    "reshuffle": Reshuffle,
    "rejected_raise": RejectedRaise,
    "response_model": ResponseModel,
}
_OPTIONAL = ("max_mus_rounds",)


@dataclass
class Event:
    """Something that happened; ``visible_to`` None = public."""

    kind: str
    seat: int | None = None
    detail: Any = None  # what happened: a mapping, cards or a (lance, ...) tuple by kind
    visible_to: tuple[int, ...] | None = None


class Observation(dict):
    """A seat's view: the fields above plus ``obs["history"]``, the events it may see (built
    on first access, from the append-only event list up to the moment of the observation).

    It is a mapping in every way: ``obs["history"]``, ``obs.get("history")``, ``"history" in
    obs`` and ``obs.keys()`` all see the history, built once when first asked for."""

    HISTORY = "history"

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default  # noqa: SIM401 - dict.get skips __missing__

    def __contains__(self, key: object) -> bool:
        return key == self.HISTORY or super().__contains__(key)

    def keys(self):
        self[self.HISTORY]
        return super().keys()

    def items(self):
        self[self.HISTORY]
        return super().items()

    def __iter__(self):
        self[self.HISTORY]
        return super().__iter__()

    def __init__(self, fields: dict, seat: int, events: list[Event], upto: int) -> None:
        super().__init__(fields)
        self._seat, self._events, self._upto = seat, events, upto

    def __missing__(self, key: str):
        if key != self.HISTORY:
            raise KeyError(key)
        history = [
            (e.kind, e.seat, e.detail)
            for e in self._events[: self._upto]
            if e.visible_to is None or self._seat in e.visible_to
        ]
        self["history"] = history
        return history


@dataclass
class MusState:
    config: MusConfig
    rng: np.random.Generator
    dealer: int
    scores: list[int] = field(default_factory=lambda: [0, 0])
    juegos: list[int] = field(default_factory=lambda: [0, 0])
    vacas: list[int] = field(default_factory=lambda: [0, 0])
    hands: list[list[int]] = field(default_factory=list)
    stock: list[int] = field(default_factory=list)
    pile: list[int] = field(default_factory=list)
    phase: Phase = MUS_DECISION
    queue: list[int] = field(default_factory=list)
    mus_rounds: int = 0
    discarded: dict[int, list[int]] = field(default_factory=dict)
    lance_names: list[str] = field(default_factory=list)
    lance: Lance | None = None
    lances: dict[str, Lance] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    hand_number: int = 0
    match_winner: int | None = None
    first_hand_of_juego: bool = True

    # ---------------------------------------------------------------- hands
    @property
    def mano(self) -> int:
        return (self.dealer + 1) % 4

    @property
    def order(self) -> list[int]:
        return [(self.mano + d) % 4 for d in range(4)]

    def table(self) -> Table:
        return Table(
            tuple(tuple(FACES[c % 10] for c in h) for h in self.hands),
            self.mano,
            self.config.ocho_reyes,
            self.config.treinta_y_una_real,
        )

    def _deal(self) -> None:
        deck = list(self.rng.permutation(N_CARDS))
        order = self.order
        self.hands = [[] for _ in range(4)]
        for i in range(16):
            self.hands[order[i % 4]].append(int(deck[i]))
        self.stock = [int(c) for c in deck[16:]]
        self.pile = []
        self.mus_rounds = 0
        self.lances = {}
        self.lance = None
        self.phase = MUS_DECISION
        self.queue = list(order)
        self.hand_number += 1
        self.events.append(Event("deal", detail={"dealer": self.dealer, "mano": self.mano}))
        for s in range(4):
            self.events.append(Event("cards", s, tuple(self.hands[s]), visible_to=(s,)))

    # ---------------------------------------------------------------- API
    @property
    def betting(self) -> Lance:
        """The lance being bet (only while the phase is BETTING)."""
        if self.lance is None:
            raise IllegalActionError(f"no lance is being bet in phase {self.phase}")
        return self.lance

    def current_player(self) -> int:
        """The seat to act, or ``TERMINAL`` when the match is over."""
        if self.phase == MATCH_OVER:
            return TERMINAL
        if self.phase == BETTING:
            actor = self.betting.actor()
            assert actor is not None, "a lance being bet has someone to act"
            return actor
        return self.queue[0]

    def is_terminal(self) -> bool:
        return self.phase == MATCH_OVER

    def returns(self) -> list[float]:
        """+1 for the seats of the match winner's team, -1 for the others (0 while playing)."""
        if self.match_winner is None:
            return [0.0] * 4
        return [1.0 if team(s) == self.match_winner else -1.0 for s in range(4)]

    def legal_kinds(self) -> tuple[str, ...]:
        """The kinds of the legal actions (cheaper than listing every bet amount)."""
        if self.phase == MATCH_OVER:
            return ()
        if self.phase == MUS_DECISION:
            return (MUS, NO_MUS)
        if self.phase == DISCARDING:
            return (DISCARD,)
        return self.betting.legal_kinds()

    def legal_actions(self) -> list[Action]:
        if self.phase == MATCH_OVER:
            return []
        if self.phase == MUS_DECISION:
            return [Action(MUS), Action(NO_MUS)]
        if self.phase == DISCARDING:
            return [Action(DISCARD, m) for m in DISCARD_MASKS]
        return self.betting.legal_actions(self._max_amount())

    def _max_amount(self) -> int:
        """The largest envido/subir offered: ``max_bet``, or with ``cap_bets`` (V14) no more
        than takes the stake to what the bettor's team needs to reach the target."""
        if not self.config.cap_bets or self.lance is None:
            return self.config.max_bet
        need = self.config.target - self.scores[team(self.current_player())]
        return max(self.config.min_envido, min(self.config.max_bet, need - self.lance.pending))

    def _check(self, action: Action) -> None:
        if self.phase == MATCH_OVER:
            raise IllegalActionError("the match is over")
        if self.phase == MUS_DECISION and action.kind not in (MUS, NO_MUS):
            raise IllegalActionError(f"{action} now: say mus or no_mus")
        if self.phase == DISCARDING and (
            action.kind != DISCARD or action.amount not in DISCARD_MASKS
        ):
            raise IllegalActionError(f"{action} now: discard 1 to 4 cards (mask 1..15)")
        if self.phase == BETTING:
            self.betting.check(action)
            if action.kind in ("envido", "subir") and action.amount > self._max_amount():
                raise IllegalActionError(
                    f"{action}: bets are capped at {self._max_amount()} here (cap_bets)"
                )

    def apply_action(self, action: Action) -> None:
        self._check(action)
        seat = self.current_player()
        if self.phase == MUS_DECISION:
            self._mus_decision(seat, action)
        elif self.phase == DISCARDING:
            self._discard(seat, action.amount)
        else:
            self._bet(seat, action)

    # ---------------------------------------------------------------- mus phase
    def _mus_decision(self, seat: int, action: Action) -> None:
        capped = (
            self.config.max_mus_rounds is not None and self.mus_rounds >= self.config.max_mus_rounds
        )
        kind = NO_MUS if capped else action.kind
        self.events.append(Event(kind, seat, "safety cap" if capped else None))
        self.queue.pop(0)
        if kind == NO_MUS:
            if self.config.first_hand_mus_corrido and self.first_hand_of_juego:
                self.dealer = (seat - 1) % 4  # V11: the player who cuts becomes mano
                self.events.append(Event("mano", seat, "mus corrido"))
            self._start_lances()
        elif not self.queue:
            self.phase = DISCARDING
            order = self.order
            self.queue = order if self.config.discard_order == "mano_first" else order[::-1]
            self.discarded = {}

    def _discard(self, seat: int, mask: int) -> None:
        cards = [c for i, c in enumerate(self.hands[seat]) if mask >> i & 1]
        self.discarded[seat] = cards
        self.pile.extend(cards)  # face down on the discard pile at once (§5.2)
        self.hands[seat] = [c for i, c in enumerate(self.hands[seat]) if not mask >> i & 1]
        self.events.append(Event("discard", seat, len(cards)))  # the count is public
        self.events.append(Event("discarded_cards", seat, tuple(cards), visible_to=(seat,)))
        self.queue.pop(0)
        if self.queue:
            return
        for s in self._discard_order():
            need = 4 - len(self.hands[s])
            owed_after = [t for t in self._discard_order() if t != s and len(self.hands[t]) < 4]
            for _ in range(need):
                if not self.stock:
                    self._reshuffle(s, owed_after)
                self.hands[s].append(self.stock.pop(0))
            self.events.append(Event("cards", s, tuple(self.hands[s]), visible_to=(s,)))
        self.mus_rounds += 1
        self.phase = MUS_DECISION
        self.queue = list(self.order)

    def _discard_order(self) -> list[int]:
        order = self.order
        return order if self.config.discard_order == "mano_first" else order[::-1]

    def _reshuffle(self, serving: int, others_owed: list[int]) -> None:
        keep: list[int] = []
        if self.config.reshuffle == "keep_last_players_own" and not others_owed:
            keep = [c for c in self.discarded.get(serving, []) if c in self.pile]
        pile = [c for c in self.pile if c not in keep]
        self.stock = [int(c) for c in self.rng.permutation(pile)]
        self.pile = keep
        self.events.append(Event("reshuffle", detail=len(self.stock)))

    # ---------------------------------------------------------------- lances
    def _start_lances(self) -> None:
        table = self.table()
        self.lance_names = [
            "grande",
            "chica",
            "pares",
            "juego" if table.anyone_has_juego() else "punto",
        ]
        self.phase = BETTING
        self._next_lance()

    def _next_lance(self) -> None:
        table = self.table()
        while self.lance_names:
            name = self.lance_names.pop(0)
            if name in ("pares", "juego"):
                for s in self.order:
                    has = table.key(name, s) is not None
                    self.events.append(Event(f"declare_{name}", s, has))
            if name == "punto":
                self.events.append(Event("punto"))
            lance = Lance(
                name,
                table.participants(name),
                self.config.min_envido,
                self.config.min_raise,
                self.config.rejected_raise,
                self.config.response_model,
            )
            self.lances[name] = lance
            if not lance.closed:
                self.lance = lance
                return
        self._end_hand()

    def _bet(self, seat: int, action: Action) -> None:
        lance = self.betting
        paid = lance.apply(action)
        self.events.append(Event("bet", seat, (lance.name, str(action))))
        if paid is not None:
            self.scores[paid[0]] += paid[1]
            self.events.append(Event("score", detail=(lance.name, paid[0], paid[1])))
            if self.config.end_on_target_immediately and self.scores[paid[0]] >= self.config.target:
                self._end_hand(juego_winner=paid[0])
                return
        if lance.status == ORDAGO_QUERIDO:
            winner = self.table().winning_team(lance.name)
            self.events.append(Event("ordago", detail=(lance.name, winner)))
            self._end_hand(juego_winner=winner)
            return
        if lance.closed:
            self._next_lance()

    # ---------------------------------------------------------------- end of hand
    def _end_hand(self, juego_winner: int | None = None) -> None:
        if self.config.reveal_at_end:
            self.events.append(Event("reveal", detail=tuple(tuple(h) for h in self.hands)))
        if juego_winner is None:
            # refused bets were paid at once; count_hand adds only what remains (§9.3)
            count = count_hand(
                self.table(),
                self.lances,
                Count(
                    self.scores, self.config.target, immediate=self.config.end_on_target_immediately
                ),
            )
            for lance, t, tantos in count.entries:
                self.events.append(Event("score", detail=(lance, t, tantos)))
            juego_winner = count.winner
        if juego_winner is not None:
            self._win_juego(juego_winner)
        if self.match_winner is None:
            if juego_winner is None:
                self.first_hand_of_juego = False
            self.dealer = self.mano  # the deal passes to the right
            self._deal()

    def _win_juego(self, winner: int) -> None:
        self.first_hand_of_juego = True
        self.juegos[winner] += 1
        self.events.append(Event("juego", detail=(winner, tuple(self.scores))))
        self.scores[0] = self.scores[1] = 0
        if self.juegos[winner] >= -(-self.config.juegos_per_vaca // 2):
            self.vacas[winner] += 1
            self.juegos[0] = self.juegos[1] = 0
            self.events.append(Event("vaca", detail=winner))
            if self.vacas[winner] >= -(-self.config.vacas_per_match // 2):
                self.match_winner = winner
                self.phase = MATCH_OVER

    # ---------------------------------------------------------------- observations
    def observation(self, seat: int) -> Observation:
        """What ``seat`` may know: its own cards and the public history (§13)."""
        return Observation(
            {
                "seat": seat,
                "mano": self.mano,
                "dealer": self.dealer,
                "phase": self.phase,
                "hand": tuple(self.hands[seat]),
                "scores": tuple(self.scores),
                "juegos": tuple(self.juegos),
                "vacas": tuple(self.vacas),
                "lance": None if self.lance is None or self.phase != BETTING else self.lance.name,
                "legal": self.legal_kinds() if self.current_player() == seat else (),
                "max_amount": self._max_amount() if self.phase == BETTING else 0,
                "ocho_reyes": self.config.ocho_reyes,
            },
            seat,
            self.events,
            len(self.events),
        )

    def card_count(self) -> int:
        """Cards in hands, stock and pile (40 when nothing is lost or duplicated)."""
        cards = list(itertools.chain(*self.hands, self.stock, self.pile))
        return len(cards) if len(set(cards)) == len(cards) else -1


class MusGame:
    def __init__(self, config: MusConfig | None = None) -> None:
        self.config = config or MusConfig()

    def new_initial_state(self, seed: int = 0) -> MusState:
        rng = np.random.default_rng(seed)
        state = MusState(self.config, rng, dealer=int(rng.integers(4)))
        state._deal()
        return state
