"""Betting inside one lance: the state machine of specs/mus.md §8.

Seats 0..3 in playing order; ``team(s) = s % 2``. ``Lance.legal_actions()`` and
``Lance.apply()`` share the same rule checks; an illegal action raises ``IllegalActionError``
and leaves the state unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from sparring import game_api


class Kind(StrEnum):
    """What a player says (they read and log as these words: Parquet and logs keep them)."""

    mus = "mus"
    no_mus = "no_mus"
    discard = "discard"
    paso = "paso"
    envido = "envido"
    ordago = "ordago"
    quiero = "quiero"
    no_quiero = "no_quiero"
    subir = "subir"


class LanceStatus(StrEnum):
    """Where a lance's betting stands: open or pending while it runs, then how it closed."""

    open = "open"
    pending = "pending"
    en_paso = "en_paso"
    querido = "querido"
    no_querido = "no_querido"
    ordago_querido = "ordago_querido"
    sin_envite = "sin_envite"
    no_jugado = "no_jugado"


PASO, ENVIDO, ORDAGO, QUIERO, NO_QUIERO, SUBIR = (
    Kind.paso,
    Kind.envido,
    Kind.ordago,
    Kind.quiero,
    Kind.no_quiero,
    Kind.subir,
)
OPEN, PENDING = LanceStatus.open, LanceStatus.pending
EN_PASO, QUERIDO, NO_QUERIDO, ORDAGO_QUERIDO, SIN_ENVITE, NO_JUGADO = (
    LanceStatus.en_paso,
    LanceStatus.querido,
    LanceStatus.no_querido,
    LanceStatus.ordago_querido,
    LanceStatus.sin_envite,
    LanceStatus.no_jugado,
)
CLOSED = (EN_PASO, QUERIDO, NO_QUERIDO, ORDAGO_QUERIDO, SIN_ENVITE, NO_JUGADO)
_ANSWER_ORDER: dict[str, int] = {NO_QUIERO: 0, QUIERO: 1, SUBIR: 2, ORDAGO: 3}


class IllegalActionError(game_api.IllegalActionError):
    """An action that the rules do not allow now; the state is unchanged."""


@dataclass(frozen=True)
class Action:
    kind: str
    amount: int = 0  # envido n or subir k

    def __str__(self) -> str:
        return f"{self.kind}({self.amount})" if self.kind in (ENVIDO, SUBIR) else self.kind


def team(seat: int) -> int:
    return seat % 2


@dataclass
class Lance:
    """One lance's betting. ``participants`` are seats in speaking order from the mano."""

    name: str
    participants: tuple[int, ...]
    min_envido: int = 2
    min_raise: int = 2
    rejected_raise: str = "previous_stake"  # or "fem_plus_deje"
    response_model: str = "sequential"  # or "pair_joint"
    status: str = OPEN
    queue: list[int] = field(default_factory=list)
    accepted: int = 0
    pending: int = 0
    is_ordago: bool = False
    raised: bool = False
    proposer: int | None = None
    winner_team: int | None = None  # SIN_ENVITE team, or NO_QUERIDO proposer's team
    value: int = 0  # NO_QUERIDO: tantos paid at once
    answers: list[tuple[int, Action]] = field(default_factory=list)  # pair_joint only

    def __post_init__(self) -> None:
        teams = {team(s) for s in self.participants}
        if not self.participants:
            self.status = NO_JUGADO
        elif len(teams) == 1:
            self.status = SIN_ENVITE
            self.winner_team = teams.pop()
        else:
            self.queue = list(self.participants)

    @property
    def closed(self) -> bool:
        return self.status in CLOSED

    def actor(self) -> int | None:
        return None if self.closed else self.queue[0]

    def rivals(self, seat: int) -> list[int]:
        """Participants of the other team in table order after ``seat`` (wrapping)."""
        return [
            s
            for d in range(1, 4)
            if (s := (seat + d) % 4) in self.participants and team(s) != team(seat)
        ]

    def legal_kinds(self) -> tuple[str, ...]:
        if self.closed:
            return ()
        if self.status == OPEN:
            return (PASO, ENVIDO, ORDAGO)
        if self.is_ordago:
            return (QUIERO, NO_QUIERO)
        return (QUIERO, NO_QUIERO, SUBIR, ORDAGO)

    def legal_actions(self, max_amount: int = 40) -> list[Action]:
        """Every legal action (amounts of envido and subir listed up to ``max_amount``)."""
        out = []
        for kind in self.legal_kinds():
            if kind == ENVIDO:
                out += [Action(ENVIDO, n) for n in range(self.min_envido, max_amount + 1)]
            elif kind == SUBIR:
                out += [Action(SUBIR, k) for k in range(self.min_raise, max_amount + 1)]
            else:
                out.append(Action(kind))
        return out

    def check(self, action: Action) -> None:
        if self.closed:
            raise IllegalActionError(f"{self.name} is closed ({self.status})")
        if action.kind not in self.legal_kinds():
            raise IllegalActionError(
                f"{action} is not allowed now; allowed: {', '.join(self.legal_kinds())}"
            )
        if action.kind == ENVIDO and action.amount < self.min_envido:
            raise IllegalActionError(f"envido must be at least {self.min_envido}")
        if action.kind == SUBIR and action.amount < self.min_raise:
            raise IllegalActionError(f"a raise must be at least {self.min_raise}")

    def apply(self, action: Action) -> tuple[int, int] | None:
        """Apply the actor's action; returns (team, tantos) scored at once, if any."""
        self.check(action)
        actor = self.queue[0]
        if self.status == PENDING and self.response_model == "pair_joint":
            return self._joint_answer(actor, action)
        return self._act(actor, action)

    def _joint_answer(self, actor: int, action: Action):
        # Both partners answer; the highest answer is applied (NO_QUIERO < QUIERO < SUBIR(k)
        # by k < ORDAGO), as if its author had spoken alone.
        self.answers.append((actor, action))
        self.queue.pop(0)
        if self.queue:
            return None
        seat, best = max(self.answers, key=lambda a: (_ANSWER_ORDER[a[1].kind], a[1].amount))
        self.answers = []
        if best.kind == NO_QUIERO:
            return self._refused()
        self.queue = [seat]
        return self._act(seat, best)

    def _propose(self, actor: int) -> None:
        self.proposer = actor
        self.queue = self.rivals(actor)
        self.status = PENDING

    def _refused(self) -> tuple[int, int]:
        self.status = NO_QUERIDO
        self.queue = []
        value = self.accepted if self.raised else 1
        if (
            self.raised
            and self.rejected_raise == "fem_plus_deje"
            and self.name in ("pares", "juego", "punto")
        ):
            value += 1
        self.value = value
        assert self.proposer is not None, "a refused bet has a proposer"
        self.winner_team = team(self.proposer)
        return self.winner_team, value

    def _act(self, actor: int, action: Action):
        kind = action.kind
        if self.status == OPEN:
            if kind == PASO:
                self.queue.pop(0)
                if not self.queue:
                    self.status = EN_PASO
                return None
            self.accepted, self.raised = 0, False
            if kind == ENVIDO:
                self.pending = action.amount
            else:
                self.is_ordago = True
            self._propose(actor)
            return None
        # PENDING
        if kind == QUIERO:
            self.status = ORDAGO_QUERIDO if self.is_ordago else QUERIDO
            self.queue = []
            return None
        if kind == NO_QUIERO:
            self.queue.pop(0)
            return None if self.queue else self._refused()
        self.accepted, self.raised = self.pending, True
        if kind == SUBIR:
            self.pending += action.amount
        else:
            self.is_ordago = True
        self._propose(actor)
        return None
