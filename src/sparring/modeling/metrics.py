"""Behaviour metrics from the Mus decision log, in context (specs/player_model.md §3–§4).

Each betting decision is an opportunity for some metrics and a success for some of them;
``observations(records)`` turns decision records into (player seat, metric, context, success)
tuples. Bluffs and risk are judged with the hands revealed at the end of the hand (the log's
percentiles), never during it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

METRICS = (
    "aggression",
    "risk_tolerance",
    "bluff_frequency",
    "acceptance_rate",
    "rejection_rate",
    "raise_rate",
    "ordago_rate",
    "mus_rate",
)
# declaration_accuracy (§3) is reserved for a signals mode: declarations are automatic and
# always exact in this engine, so there is nothing to measure.
WEAK = 0.40
AGGRESSIVE = ("envido", "subir", "ordago")


@dataclass(frozen=True)
class Context:
    """lance, score situation, game phase, position of the player's pair."""

    lance: str
    score: str  # close_to_target | ahead | behind | even
    phase: str  # early | mid | late
    position: str  # mano | postre

    def chain(self) -> list[tuple[str, ...]]:
        """Keys from the most specific to the most general (the back-off chain)."""
        return [
            (self.lance, self.score, self.phase, self.position),
            (self.lance, self.score),
            (self.lance,),
            (),
        ]


def context_of(record, target: int = 40) -> Context:
    """The context of a logged decision."""
    return situation(record.lance, record.score_own, record.score_other, record.distance, target)


def situation(lance: str, own: int, other: int, distance: int, target: int = 40) -> Context:
    """The context of a decision by a player ``distance`` seats after the mano, whose team has
    ``own`` tantos against ``other`` (specs §4)."""
    if max(own, other) >= target - 8:
        score = "close_to_target"
    elif own - other > 5:
        score = "ahead"
    elif own - other < -5:
        score = "behind"
    else:
        score = "even"
    top = max(own, other)
    phase = "early" if top < 15 else "late" if top >= 30 else "mid"
    position = "mano" if distance in (0, 2) else "postre"
    return Context(lance, score, phase, position)


def weak_hand(record) -> bool:
    pct = getattr(record, f"pct_{record.lance}", None)
    return pct is not None and pct < WEAK


def observations(records: Iterable) -> Iterator[tuple[int, str, Context, bool]]:
    """(seat, metric, context, success) for every opportunity in the decision records."""
    for r in records:
        ctx = context_of(r)
        if r.lance == "mus":
            yield r.seat, "mus_rate", ctx, r.action == "mus"
            continue
        revealed = bool(r.all_hands)
        could_bet = not r.pending or not r.is_ordago
        if could_bet:
            yield r.seat, "aggression", ctx, r.action in AGGRESSIVE
            yield r.seat, "ordago_rate", ctx, r.action == "ordago"
        if r.pending:
            yield r.seat, "acceptance_rate", ctx, r.action == "quiero"
            yield r.seat, "rejection_rate", ctx, r.action == "no_quiero"
            if not r.is_ordago:
                yield r.seat, "raise_rate", ctx, r.action in ("subir", "ordago")
            if r.action == "quiero" and revealed:
                yield r.seat, "risk_tolerance", ctx, weak_hand(r)
        if r.action in AGGRESSIVE and revealed:
            yield r.seat, "bluff_frequency", ctx, weak_hand(r)
