"""Deal sets: pre-generated deals with every equity and showdown strength precomputed.

A deal for N seats is 5 board cards and N hole pairs, all distinct. For each hole pair h,
street (preflop, flop, turn, river) and opponent count k = 1..N-1 it stores the equity of h
against k random hands given the board visible at that street (preflop from the preflop table,
later streets by Monte Carlo), and the 7-card showdown value of h. A deal is kept only if,
under the fixed preflop policy, at least two players see the flop in at least one rotation.

Deal ``i`` of a seed draws from its own random stream (candidates until one passes the filter,
then its equities), so a deal set is the same however it is split into shards.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
from numba import njit

from sparring.poker.catalog import MAX_SEATS, MIN_SEATS
from sparring.poker.engine import SEAT_COUNT, betting_round, start_hand
from sparring.poker.equity import equity_by_opponents_kernel
from sparring.poker.evaluator import CARD_BITS, CARD_KEYS, SUIT_START, value7
from sparring.poker.preflop import _GRID, load_table
from sparring.poker.rules import DEFAULT_CALL_FACTOR, DEFAULT_RAISE_FACTOR
from sparring.runtime.storage.datasets import DatasetSpec
from sparring.seeding import below, next_u64, seed_state, stream_state

DEFAULT_EQUITY_TRIALS = 2000
SCHEMA_VERSION = 1


def deal_spec(n: int) -> DatasetSpec:
    """The Parquet contract of a deal set for ``n`` seats."""
    return DatasetSpec(
        name="deals",
        version=SCHEMA_VERSION,
        schema=pa.schema(
            [
                ("deal_id", pa.int64()),
                ("board", pa.list_(pa.uint8(), 5)),
                ("holes", pa.list_(pa.uint8(), 2 * n)),
                ("equity", pa.list_(pa.float32(), n * 4 * (n - 1))),
                ("strength", pa.list_(pa.int32(), n)),
            ]
        ),
    )


@dataclass(frozen=True)
class DealSet:
    """Deals as arrays: board (D, 5), holes (D, N, 2), equity (D, N, 4, N-1), strength (D, N)."""

    deal_id: np.ndarray
    board: np.ndarray
    holes: np.ndarray
    equity: np.ndarray
    strength: np.ndarray

    @property
    def n_seats(self) -> int:
        return self.holes.shape[1]

    def __len__(self) -> int:
        return len(self.deal_id)

    def subset(self, index) -> DealSet:
        return DealSet(
            self.deal_id[index],
            self.board[index],
            self.holes[index],
            self.equity[index],
            self.strength[index],
        )

    def to_arrow(self) -> pa.Table:
        n, d = self.n_seats, len(self)

        def fixed(values: np.ndarray, width: int, typ) -> pa.Array:
            flat = pa.array(np.ascontiguousarray(values).reshape(d * width), type=typ)
            return pa.FixedSizeListArray.from_arrays(flat, width)

        return pa.table(
            {
                "deal_id": pa.array(self.deal_id, pa.int64()),
                "board": fixed(self.board, 5, pa.uint8()),
                "holes": fixed(self.holes, 2 * n, pa.uint8()),
                "equity": fixed(self.equity, n * 4 * (n - 1), pa.float32()),
                "strength": fixed(self.strength, n, pa.int32()),
            }
        )

    @classmethod
    def from_arrow(cls, table: pa.Table) -> DealSet:
        d = table.num_rows
        holes_width = table.schema.field("holes").type.list_size
        n = holes_width // 2

        def values(name: str, dtype) -> np.ndarray:
            col = table.column(name).combine_chunks()
            return col.flatten().to_numpy(zero_copy_only=False).astype(dtype, copy=False)

        return cls(
            deal_id=table.column("deal_id").to_numpy(),
            board=values("board", np.uint8).reshape(d, 5),
            holes=values("holes", np.uint8).reshape(d, n, 2),
            equity=values("equity", np.float32).reshape(d, n, 4, n - 1),
            strength=values("strength", np.int32).reshape(d, n),
        )

    @classmethod
    def concat(cls, parts: list[DealSet]) -> DealSet:
        return cls(
            *(
                np.concatenate([getattr(p, f) for p in parts])
                for f in ("deal_id", "board", "holes", "equity", "strength")
            )
        )


@njit(cache=True)
def flop_is_reached(
    equity,
    n,
    raise_factor,
    call_factor,
    seat_hole,
    seat_player,
    genes,
    used,
    contrib,
    street_contrib,
):
    """True when two or more players see the flop in at least one rotation.

    Only the hole-pair rotation matters before the flop: every player uses the same fixed
    preflop policy, so which player sits where does not change the preflop betting.
    """
    for s in range(n):
        seat_player[s] = s
    for b in range(n):
        for s in range(n):
            seat_hole[s] = (s + b) % n
        active = start_hand(n, contrib)
        active = betting_round(
            0,
            active,
            equity,
            seat_hole,
            seat_player,
            genes,
            raise_factor,
            call_factor,
            used,
            contrib,
            street_contrib,
        )
        if SEAT_COUNT[active] >= 2:
            return True
    return False


@njit(cache=True)
def _generate_kernel(
    first_id,
    n,
    trials,
    seed,
    preflop,
    grid,
    raise_factor,
    call_factor,
    board_out,
    holes_out,
    equity_out,
    strength_out,
    rejected_out,
):
    count = board_out.shape[0]
    deck = np.empty(52, dtype=np.uint8)
    shares = np.zeros(n)
    seat_hole = np.empty(n, dtype=np.int64)
    seat_player = np.empty(n, dtype=np.int64)
    contrib = np.empty(n, dtype=np.int64)
    street_contrib = np.empty(n, dtype=np.int64)
    genes = np.zeros((n, 540, 2), dtype=np.int8)  # unused preflop
    used = np.zeros((n, 540), dtype=np.bool_)
    need = 5 + 2 * n
    for i in range(count):
        state = stream_state(seed, first_id + i)
        rejected = 0
        while True:
            for c in range(52):
                deck[c] = c
            for j in range(need):
                state, bits = next_u64(state)
                r = j + below(bits, 52 - j)
                tmp = deck[j]
                deck[j] = deck[r]
                deck[r] = tmp
            for h in range(n):
                c0 = deck[5 + 2 * h]
                c1 = deck[6 + 2 * h]
                r0, r1 = c0 >> 2, c1 >> 2
                suited = 1 if (c0 & 3) == (c1 & 3) else 0
                cls = grid[max(r0, r1), min(r0, r1), suited]
                for k in range(1, n):
                    equity_out[i, h, 0, k - 1] = preflop[cls, k]
            if flop_is_reached(
                equity_out[i],
                n,
                raise_factor,
                call_factor,
                seat_hole,
                seat_player,
                genes,
                used,
                contrib,
                street_contrib,
            ):
                break
            rejected += 1
        rejected_out[i] = rejected
        for j in range(5):
            board_out[i, j] = deck[j]
        board_key = np.int64(SUIT_START)
        board_bits = np.int64(0)
        for j in range(5):
            board_key += CARD_KEYS[deck[j]]
            board_bits |= CARD_BITS[deck[j]]
        for h in range(n):
            c0 = deck[5 + 2 * h]
            c1 = deck[6 + 2 * h]
            holes_out[i, h, 0] = c0
            holes_out[i, h, 1] = c1
            strength_out[i, h] = value7(
                board_key + CARD_KEYS[c0] + CARD_KEYS[c1],
                board_bits | CARD_BITS[c0] | CARD_BITS[c1],
            )
            for street in range(1, 4):
                state = equity_by_opponents_kernel(
                    c0, c1, board_out[i], street + 2, n - 1, trials, state, shares
                )
                for k in range(n - 1):
                    equity_out[i, h, street, k] = shares[k] / trials


def generate_deals(
    first_id: int,
    count: int,
    n_seats: int = 10,
    equity_trials: int = DEFAULT_EQUITY_TRIALS,
    seed: int = 0,
    preflop_table: np.ndarray | None = None,
    raise_factor: float = DEFAULT_RAISE_FACTOR,
    call_factor: float = DEFAULT_CALL_FACTOR,
) -> tuple[DealSet, np.ndarray]:
    """Deals ``first_id .. first_id + count - 1`` of ``seed``; also how many candidates each
    deal rejected before one passed the flop filter."""
    if not MIN_SEATS <= n_seats <= MAX_SEATS:
        raise ValueError(f"n_seats must be in {MIN_SEATS}..{MAX_SEATS}, got {n_seats}")
    if equity_trials < 1:
        raise ValueError(f"equity_trials must be positive, got {equity_trials}")
    table = load_table() if preflop_table is None else preflop_table
    board = np.empty((count, 5), np.uint8)
    holes = np.empty((count, n_seats, 2), np.uint8)
    equity = np.zeros((count, n_seats, 4, n_seats - 1), np.float32)
    strength = np.empty((count, n_seats), np.int32)
    rejected = np.zeros(count, np.int64)
    _generate_kernel(
        int(first_id),
        n_seats,
        int(equity_trials),
        seed_state(seed),
        np.ascontiguousarray(table, np.float32),
        _GRID.astype(np.int64),
        float(raise_factor),
        float(call_factor),
        board,
        holes,
        equity,
        strength,
        rejected,
    )
    ids = np.arange(first_id, first_id + count, dtype=np.int64)
    return DealSet(ids, board, holes, equity, strength), rejected
