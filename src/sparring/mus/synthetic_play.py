"""Matches between four synthetic players on the compiled engine (``mus.kernel``).

``play_synthetic_match(players, seed, match_id)`` gives what ``log.play_match(MusGame(),
players, seed, match_id)`` gives for four ``SyntheticPlayer``s under the default rules: the same
hands, the same decision log, record for record, and the players' generators and hand counts
advanced the same way. ``compiled_ok(players, config)`` says when that holds; otherwise play the
Python engine (``play_match``), which plays every rule variant and every kind of player.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import pyarrow as pa

from sparring.mus import kernel
from sparring.mus.engine import MusConfig
from sparring.mus.log import LANCES, LOG_SPEC, Decision
from sparring.mus.players import Profile, SyntheticPlayer, mid_percentile
from sparring.mus.strength import multisets


@dataclass(frozen=True)
class SyntheticMatch:
    """One match's outcome and its decision log as ``kernel.COLUMNS`` rows."""

    match_id: int
    hand_number: int  # hands played (``MusState.hand_number`` at the end)
    match_winner: int  # the winning team
    rows: np.ndarray

    def decisions(self) -> list[Decision]:
        """The log as ``Decision`` records, equal to ``play_match``'s."""
        return decisions(self.rows, self.match_id)

    def table(self) -> pa.Table:
        """The log as a ``LOG_SPEC`` table (``log.to_arrow`` of ``decisions()``)."""
        return to_arrow([self])


def compiled_ok(players: Sequence[object], config: MusConfig | None = None) -> bool:
    """True when the compiled engine plays this match exactly as the Python one:

    - the rules are ``kernel.RULES`` (the defaults, ``MusConfig()``);
    - four distinct plain ``SyntheticPlayer``s, each drawing from a numpy ``Generator``;
    - every profile's envido is one the rules allow (``bet_size`` 2..40), and no profile
      raises every bet it answers without ever an órdago (a raising war could not end);
    - ``shift_after`` is None or a whole number of hands.
    """
    if (config if config is not None else MusConfig()) != kernel.RULES:
        return False
    if len(players) != 4 or any(type(p) is not SyntheticPlayer for p in players):
        return False
    # one object at two seats: the Python engine counts its hands once a seat
    if len({id(p) for p in players}) != 4:
        return False
    for p in players:
        assert isinstance(p, SyntheticPlayer)  # checked above; for the type checker
        if type(p.rng) is not np.random.Generator:
            return False
        if p.shift_after is not None and not isinstance(p.shift_after, (int, np.integer)):
            return False
        for prof in _profiles_of(p):
            if not kernel.MIN_ENVIDO <= prof.bet_size <= kernel.MAX_BET:
                return False
            if prof.raise_rate >= 1.0 and prof.ordago_rate == 0.0:
                return False
    return True


def play_synthetic_match(
    players: Sequence[SyntheticPlayer], seed: int, match_id: int = 0
) -> SyntheticMatch:
    """Play one match (``compiled_ok`` must hold: raises ValueError otherwise)."""
    if not compiled_ok(players):
        raise ValueError(
            "the compiled Mus engine plays four SyntheticPlayers (bet_size 2..40) under the "
            "default rules; play this match with mus.log.play_match"
        )
    profiles = np.stack([_profile_array(p) for p in players])
    # -1: never; a negative count shifts from the first hand, as 0 does (hands_seen >= it)
    shift_after = np.array(
        [-1 if p.shift_after is None else max(0, int(p.shift_after)) for p in players],
        dtype=np.int64,
    )
    seen = np.array([p.hands_seen for p in players], dtype=np.int64)
    rows, n, hands, winner = kernel.play_kernel(
        np.random.default_rng(seed),
        tuple(p.rng for p in players),
        profiles,
        shift_after,
        seen,
        percentile_table(),
        kernel.FACE_OF_CARD,
        kernel.RANK_OF_CARD,
        kernel.POINTS_OF_CARD,
        kernel.JUEGO_ORDER,
    )
    for p, count in zip(players, seen, strict=True):
        p.hands_seen = int(count)
    return SyntheticMatch(match_id, int(hands), int(winner), rows[:n])


def warm_up() -> float:
    """Load (or compile, the first time on a machine) the kernel and the percentile table by
    playing a throw-away match, and make its table (pyarrow's first conversions); returns the
    seconds it took."""
    start = time.perf_counter()
    play_synthetic_match([SyntheticPlayer(seed=s) for s in range(4)], seed=0).table()
    return time.perf_counter() - start


def _profiles_of(player: SyntheticPlayer) -> list[Profile]:
    return [player.profile, *player.per_lance.values(), player.shifted or player.profile]


def _profile_array(player: SyntheticPlayer) -> np.ndarray:
    """[which, slot, field]: which 0 before the shift, 1 after; slots ``RECORD_LANCES``
    (``SyntheticPlayer.current``: a lance's own profile, else the player's; after the shift,
    the shifted one everywhere). Per-lance keys that name no lance are never read, as there."""
    out = np.empty((2, len(kernel.RECORD_LANCES), len(kernel.PROFILE_FIELDS)))
    out[0] = _fields(player.profile)
    out[1] = _fields(player.shifted or player.profile)
    for lance, profile in player.per_lance.items():
        if lance in kernel.RECORD_LANCES:
            out[0, kernel.RECORD_LANCES.index(lance)] = _fields(profile)
    return out


def _fields(profile: Profile) -> list[float]:
    return [getattr(profile, name) for name in kernel.PROFILE_FIELDS]


@lru_cache(maxsize=1)
def percentile_table() -> np.ndarray:
    """``mid_percentile(lance, ranks, True)`` at ``[lance index in LANCES, rank code]`` for
    every hand the deck allows (8 reyes); NaN elsewhere."""
    table = np.full((len(LANCES), kernel.RANK_CODES), np.nan)
    for ranks in multisets(True):
        code = ((ranks[0] * 13 + ranks[1]) * 13 + ranks[2]) * 13 + ranks[3]
        for i, lance in enumerate(LANCES):
            table[i, code] = mid_percentile(lance, ranks, True)
    table.setflags(write=False)
    return table


def decisions(rows: np.ndarray, match_id: int) -> list[Decision]:
    """``kernel.COLUMNS`` rows as ``Decision`` records (the Python engine's log)."""
    pct = percentile_table()
    c = kernel.COL
    ints = ("hand", "seat", "distance", "score_own", "score_other", "juegos_own",
            "juegos_other", "mus_rounds", "accepted", "stake", "amount")  # fmt: skip
    flags = ("lance_mano", "pending", "raised", "is_ordago", "final")
    int_at, flag_at = [c[k] for k in ints], [c[k] for k in flags]
    lance_at, action_at, code_at = c["lance"], c["action"], c["rank_code"]
    own, shown = c["own_0"], c["all_0"]
    out = []
    for row in rows.tolist():
        fields: dict[str, Any] = dict(zip(ints, (row[i] for i in int_at), strict=True))
        fields.update(zip(flags, (bool(row[i]) for i in flag_at), strict=True))
        fields.update((f"pct_{x}", float(pct[i, row[code_at]])) for i, x in enumerate(LANCES))
        out.append(
            Decision(
                match=match_id,
                lance=kernel.RECORD_LANCES[row[lance_at]],
                action=kernel.ACTIONS[row[action_at]],
                own_hand=row[own : own + 4],
                all_hands=row[shown : shown + 16],
                **fields,
            )
        )
    return out


def to_arrow(matches: Sequence[SyntheticMatch]) -> pa.Table:
    """The matches' logs as one ``LOG_SPEC`` table, column by column (no records): one
    conversion for many matches costs what one costs."""
    c = kernel.COL
    if not matches:
        return LOG_SPEC.schema.empty_table()
    rows = np.concatenate([m.rows for m in matches])
    match_ids = np.repeat([m.match_id for m in matches], [len(m.rows) for m in matches])
    pct = percentile_table()
    lance_names = np.array(kernel.RECORD_LANCES, dtype=object)
    action_names = np.array(kernel.ACTIONS, dtype=object)
    columns = {
        "match": match_ids.astype(np.int64),
        "hand": rows[:, c["hand"]].astype(np.int64),
        "lance": lance_names[rows[:, c["lance"]]],
        "seat": rows[:, c["seat"]].astype(np.int8),
        "distance": rows[:, c["distance"]].astype(np.int8),
        "lance_mano": rows[:, c["lance_mano"]].astype(bool),
        "score_own": rows[:, c["score_own"]].astype(np.int16),
        "score_other": rows[:, c["score_other"]].astype(np.int16),
        "juegos_own": rows[:, c["juegos_own"]].astype(np.int8),
        "juegos_other": rows[:, c["juegos_other"]].astype(np.int8),
        "mus_rounds": rows[:, c["mus_rounds"]].astype(np.int16),
        "pending": rows[:, c["pending"]].astype(bool),
        "accepted": rows[:, c["accepted"]].astype(np.int16),
        "stake": rows[:, c["stake"]].astype(np.int16),
        "raised": rows[:, c["raised"]].astype(bool),
        "is_ordago": rows[:, c["is_ordago"]].astype(bool),
        "action": action_names[rows[:, c["action"]]],
        "amount": rows[:, c["amount"]].astype(np.int16),
        "final": rows[:, c["final"]].astype(bool),
        "own_hand": _fixed_lists(rows[:, c["own_0"] : c["own_0"] + 4], 4),
        "all_hands": _fixed_lists(rows[:, c["all_0"] : c["all_0"] + 16], 16),
    }
    for i, lance in enumerate(LANCES):
        columns[f"pct_{lance}"] = pct[i, rows[:, c["rank_code"]]].astype(np.float32)
    return pa.Table.from_pydict(
        {name: pa.array(columns[name], type=LOG_SPEC.schema.field(name).type)
         if not isinstance(columns[name], pa.Array) else columns[name]
         for name in LOG_SPEC.schema.names},
        schema=LOG_SPEC.schema,
    )  # fmt: skip


def _fixed_lists(values: np.ndarray, width: int) -> pa.Array:
    flat = pa.array(np.ascontiguousarray(values, dtype=np.int8).reshape(-1))
    return pa.FixedSizeListArray.from_arrays(flat, width)
