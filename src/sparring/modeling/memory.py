"""The bot's memories (specs/player_model.md §6), built from what it may see.

- ``ShortTermMemory``: the current game's public record — every hand's public events (bets,
  mus calls, discard counts, declarations, scores, the reveal) and the running score. From a
  finished hand it rebuilds the decision records of every seat (``decisions_from_public``), the
  same records the server logs, so the bot learns exactly what a spectator could.
- ``SessionMemory``: counters per (metric, context) with fast decay per hand.
- The long-term memory is ``sparring.modeling.store`` (SQLite); ``profile_view`` there is the
  aggregated view for a statistics screen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sparring.modeling.metrics import observations
from sparring.modeling.model import PlayerModel
from sparring.mus.cards import FACES
from sparring.mus.log import Decision, hand_percentiles


def parse_action(text: str) -> tuple[str, int]:
    """ "envido(2)" → ("envido", 2); "paso" → ("paso", 0)."""
    if text.endswith(")"):
        kind, amount = text[:-1].split("(")
        return kind, int(amount)
    return text, 0


@dataclass
class LanceView:
    """A lance's betting state as the public sees it (the engine's ``Lance`` fields)."""

    participants: list[int]
    pending: bool = False
    accepted: int = 0
    stake: int = 0
    raised: bool = False
    is_ordago: bool = False
    bettor: int = -1
    refused: set[int] = field(default_factory=set)  # who refused the current bet

    def advance(self, seat: int, action: str, amount: int) -> None:
        if action in ("envido", "ordago") and not self.pending:  # an opening bet
            self.accepted, self.raised, self.stake = 0, False, amount
        elif action in ("subir", "ordago"):  # a raise: the previous bet is the accepted one
            self.accepted, self.raised, self.stake = self.stake, True, self.stake + amount
        if action in ("envido", "subir", "ordago"):
            self.pending, self.bettor, self.refused = True, seat, set()
            self.is_ordago = self.is_ordago or action == "ordago"
        elif action == "quiero":
            self.pending = False
        elif action == "no_quiero":
            self.refused.add(seat)


def decisions_from_public(
    public: Sequence[tuple[str, Any, Any]],  # (kind, seat or None, detail)
    scores: list[int],
    juegos: list[int],
    ocho_reyes: bool = True,
    match_id: int = 0,
    hand: int = 0,
) -> list[Decision]:
    """Rebuild a hand's decision records from its public events (which end with the reveal).

    ``scores`` and ``juegos`` (per team, at the start of the hand) are updated in place from
    the hand's score / juego / vaca events. Mus records carry no percentiles (they were decided
    on cards later discarded, which are never shown)."""
    mano = 0
    revealed: tuple = ()
    for kind, _, detail in public:
        if kind == "deal":
            mano = detail["mano"]
        elif kind == "reveal":
            revealed = detail
    faces = [[FACES[c % 10] for c in h] for h in revealed] if revealed else []
    flat = [f for h in faces for f in h]
    pct: dict[int, dict[str, Any]] = {}  # Decision's pct_* fields by seat
    for s, hand_faces in enumerate(faces):
        pct[s] = hand_percentiles(tuple(sorted(hand_faces)), ocho_reyes)
    views: dict[str, LanceView] = {}
    declared: dict[str, list[int]] = {"pares": [], "juego": []}
    records: list[Decision] = []
    discards = 0
    order = [(mano + d) % 4 for d in range(4)]
    for i, (kind, seat, detail) in enumerate(public):
        if kind in ("declare_pares", "declare_juego") and detail:
            declared[kind.removeprefix("declare_")].append(seat)
        elif kind == "discard":
            discards += 1
        elif kind in ("mus", "no_mus"):
            t = seat % 2
            records.append(
                Decision(
                    match_id, hand, "mus", seat, (seat - mano) % 4, seat == mano,
                    scores[t], scores[1 - t], juegos[t], juegos[1 - t], discards // 4,
                    False, 0, 0, False, False, kind, 0, all_hands=flat,
                )
            )  # fmt: skip
        elif kind == "bet":
            lance, text = detail
            action, amount = parse_action(text)
            if lance not in views:
                part = declared.get(lance) or order
                views[lance] = LanceView([s for s in order if s in part])
            v = views[lance]
            t = seat % 2
            record = Decision(
                match_id, hand, lance, seat, (seat - mano) % 4, v.participants[0] == seat,
                scores[t], scores[1 - t], juegos[t], juegos[1 - t], discards // 4,
                v.pending, v.accepted, v.stake, v.raised, v.is_ordago, action, amount,
                all_hands=flat, own_hand=faces[seat] if faces else [], **pct.get(seat, {}),
            )  # fmt: skip
            if action == "no_quiero":
                following = public[i + 1] if i + 1 < len(public) else None
                record.final = bool(following and following[0] == "score")
            records.append(record)
            v.advance(seat, action, amount)
        elif kind == "score":
            _, team_id, tantos = detail
            scores[team_id] += tantos
        elif kind == "juego":
            juegos[detail[0]] += 1
            scores[0] = scores[1] = 0
        elif kind == "vaca":
            juegos[0] = juegos[1] = 0
    return records


@dataclass
class ShortTermMemory:
    """The current game as a spectator sees it: public events per hand and the score."""

    ocho_reyes: bool = True
    hands: list[tuple] = field(default_factory=list)
    scores: list[int] = field(default_factory=lambda: [0, 0])
    juegos: list[int] = field(default_factory=lambda: [0, 0])

    def end_hand(self, public: Sequence) -> list[Decision]:
        """Store a finished hand's public events; returns its rebuilt decision records."""
        self.hands.append(tuple(public))
        return decisions_from_public(
            public, self.scores, self.juegos, self.ocho_reyes, hand=len(self.hands)
        )


@dataclass
class SessionMemory:
    """Per opponent seat, counters with fast decay (``decay`` per hand)."""

    decay: float = 0.9
    k: float = 10.0
    models: dict[int, PlayerModel] = field(default_factory=dict)

    def model(self, seat: int) -> PlayerModel:
        if seat not in self.models:
            self.models[seat] = PlayerModel(f"seat{seat}", k=self.k)
        return self.models[seat]

    def end_hand(self, records: Sequence[Decision], seats: Sequence[int]) -> None:
        for m in self.models.values():
            m.decay(self.decay)
        for seat, metric, ctx, success in observations(records):
            if seat in seats:
                self.model(seat).observe(metric, ctx, success)
