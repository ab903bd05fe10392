"""The decision log: one record per decision (specs/mus.md §15), exportable to Parquet.

Betting decisions carry their lance; mus decisions are logged with ``lance = "mus"`` and action
``mus`` / ``no_mus`` (the opportunities of the model's ``mus_rate``). ``play_match`` runs a
match between four players and returns the final state and the records; after each hand's
reveal every record of that hand gets all four hands, and each record the deciding player's
per-lance percentiles at the moment of the decision. At the end of a hand each player gets the
revealed hands and the hand's public events (``on_hand_end(revealed, public)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import pyarrow as pa

from sparring.mus.cards import FACES, hand_ranks
from sparring.mus.engine import BETTING, MUS_DECISION, MusGame, MusState
from sparring.mus.lance import NO_QUERIDO, NO_QUIERO, PENDING
from sparring.mus.players import Player, mid_percentile
from sparring.runtime.storage.datasets import DatasetSpec

LANCES = ("grande", "chica", "pares", "juego", "punto")
LOG_SPEC = DatasetSpec(
    "mus_decisions",
    2,  # 2: mus decisions logged with lance "mus"
    pa.schema(
        [
            ("match", pa.int64()),
            ("hand", pa.int64()),
            ("lance", pa.string()),
            ("seat", pa.int8()),
            ("distance", pa.int8()),
            ("lance_mano", pa.bool_()),
            ("score_own", pa.int16()),
            ("score_other", pa.int16()),
            ("juegos_own", pa.int8()),
            ("juegos_other", pa.int8()),
            ("mus_rounds", pa.int16()),
            ("pending", pa.bool_()),
            ("accepted", pa.int16()),
            ("stake", pa.int16()),
            ("raised", pa.bool_()),
            ("is_ordago", pa.bool_()),
            ("action", pa.string()),
            ("amount", pa.int16()),
            ("final", pa.bool_()),
            ("own_hand", pa.list_(pa.int8(), 4)),
            ("all_hands", pa.list_(pa.int8(), 16)),
            ("pct_grande", pa.float32()),
            ("pct_chica", pa.float32()),
            ("pct_pares", pa.float32()),
            ("pct_juego", pa.float32()),
            ("pct_punto", pa.float32()),
        ]
    ),
)


@dataclass
class Decision:
    match: int
    hand: int
    lance: str
    seat: int
    distance: int
    lance_mano: bool
    score_own: int
    score_other: int
    juegos_own: int
    juegos_other: int
    mus_rounds: int
    pending: bool
    accepted: int
    stake: int
    raised: bool
    is_ordago: bool
    action: str
    amount: int
    final: bool = True
    own_hand: list[int] = field(default_factory=list)
    all_hands: list[int] = field(default_factory=list)
    pct_grande: float = 0.0
    pct_chica: float = 0.0
    pct_pares: float = 0.0
    pct_juego: float = 0.0
    pct_punto: float = 0.0


def _percentiles(state: MusState, seat: int) -> dict[str, Any]:
    faces = tuple(sorted(FACES[c % 10] for c in state.hands[seat]))
    return hand_percentiles(faces, state.config.ocho_reyes)


@lru_cache(maxsize=8192)
def hand_percentiles(faces: tuple[int, ...], ocho_reyes: bool) -> dict[str, float]:
    """``pct_<lance>`` for a hand given by its sorted faces (cached and shared: do not modify
    the returned dict)."""
    ranks = tuple(sorted(hand_ranks(faces, ocho_reyes)))
    return {f"pct_{x}": mid_percentile(x, ranks, ocho_reyes) for x in LANCES}


def play_match(
    game: MusGame,
    players: Sequence[Player],
    seed: int,
    match_id: int = 0,
    max_actions: int = 1_000_000,
    models: Sequence[object] | None = None,
    max_hands: int | None = None,
) -> tuple[MusState, list[Decision]]:
    """Play one match (or its first ``max_hands`` hands); returns the state and the decision
    log. ``models[seat]`` is what the server hands that seat at ``on_game_start`` (e.g. its
    opponents' PlayerModels; §6)."""
    state = game.new_initial_state(seed)
    for seat, p in enumerate(players):
        p.on_game_start(models[seat] if models is not None else None)
    records: list[Decision] = []
    open_hand: list[Decision] = []
    hand_start = 0  # index of the current hand's first event
    hand_cards = [list(h) for h in state.hands]
    hand_no = state.hand_number
    pct_cache: dict[int, dict[str, Any]] = {}  # Decision's pct_* fields by seat
    for _ in range(max_actions):
        if state.is_terminal():
            break
        seat = state.current_player()
        if state.phase == BETTING:
            lance = state.betting
            if seat not in pct_cache:
                pct_cache[seat] = _percentiles(state, seat)
            t = seat % 2
            seen = state.observation(seat)
            action = players[seat].act(seen, seen["legal"])
            record = Decision(
                match_id,
                state.hand_number,
                lance.name,
                seat,
                (seat - state.mano) % 4,
                lance.participants[0] == seat,
                state.scores[t],
                state.scores[1 - t],
                state.juegos[t],
                state.juegos[1 - t],
                state.mus_rounds,
                lance.status == PENDING,
                lance.accepted,
                lance.pending,
                lance.raised,
                lance.is_ordago,
                action.kind,
                action.amount,
                own_hand=[FACES[c % 10] for c in state.hands[seat]],
                **pct_cache[seat],
            )
            state.apply_action(action)
            if action.kind == NO_QUIERO:
                record.final = lance.status == NO_QUERIDO
            open_hand.append(record)
        else:
            phase, t = state.phase, seat % 2
            seen = state.observation(seat)
            action = players[seat].act(seen, seen["legal"])
            if phase == MUS_DECISION:
                open_hand.append(
                    Decision(
                        match_id,
                        state.hand_number,
                        "mus",
                        seat,
                        (seat - state.mano) % 4,
                        seat == state.mano,
                        state.scores[t],
                        state.scores[1 - t],
                        state.juegos[t],
                        state.juegos[1 - t],
                        state.mus_rounds,
                        False,
                        0,
                        0,
                        False,
                        False,
                        action.kind,
                        0,
                        own_hand=[FACES[c % 10] for c in state.hands[seat]],
                        **_percentiles(state, seat),
                    )
                )
            state.apply_action(action)
            if state.phase == BETTING:
                hand_cards = [list(h) for h in state.hands]  # after the last redraw
                pct_cache = {}
        if state.hand_number != hand_no or state.is_terminal():
            revealed = [FACES[c % 10] for h in hand_cards for c in h]
            for r in open_hand:
                r.all_hands = revealed
            records.extend(open_hand)
            open_hand = []
            public = _public_events(state.events, hand_start)
            for p in players:
                p.on_hand_end(tuple(tuple(h) for h in hand_cards), public)
            hand_start = len(state.events) if state.is_terminal() else _last_deal(state.events)
            hand_no = state.hand_number
            hand_cards = [list(h) for h in state.hands]
            pct_cache = {}
            if max_hands is not None and hand_no > max_hands:
                break
    return state, records


def _last_deal(events: Sequence) -> int:
    return max(i for i, e in enumerate(events) if e.kind == "deal")


def _public_events(events: Sequence, start: int) -> tuple[tuple[str, int | None, object], ...]:
    """The public events of the hand that starts at ``start`` (up to the next deal)."""
    out: list[tuple[str, int | None, object]] = []
    for e in events[start:]:
        if e.kind == "deal" and out:
            break
        if e.visible_to is None:
            out.append((e.kind, e.seat, e.detail))
    return tuple(out)


def to_arrow(records: Sequence[Decision]) -> pa.Table:
    """The decision log as a table of ``LOG_SPEC`` (a decision with no hands shown gets 16
    zeros). Built column by column: ``asdict`` per record deep-copied every list."""
    columns = {name: [getattr(r, name) for r in records] for name in LOG_SPEC.schema.names}
    columns["all_hands"] = [hands or [0] * 16 for hands in columns["all_hands"]]
    return pa.Table.from_pydict(columns, schema=LOG_SPEC.schema)
