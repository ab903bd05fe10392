"""The fixed-limit hold'em table engine: one numba kernel plays every rotation of every deal.

``play_deals`` seats N players (chromosomes) at a table and plays each deal N x N times
("duplicate" rotation, specs/poker.md §6.4): for rotation ``r = a * N + b`` player ``p`` sits in
seat ``(p + a) % N`` and the hole pair at seat ``s`` is deal hole ``(s + b) % N``. Every player
thus plays every hole pair from every seat once per deal.

Deals carry precomputed equities and showdown strengths, so play evaluates nothing. The rules
(blinds, order, bet sizes, cap, the policies) are the scalar helpers of ``rules.py``, shared with
the readable reference in ``table.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from sparring.poker.catalog import MAX_SEATS, MIN_SEATS, N_GENES
from sparring.poker.rules import (
    CALL,
    DEFAULT_CALL_FACTOR,
    DEFAULT_RAISE_FACTOR,
    FOLD,
    MAX_BETS,
    RAISE,
    SMALL_BET,
    bet_size,
    blind_seats,
    decision_value,
    first_to_act,
    gene_action,
    gene_index,
    preflop_action,
)

# Seat sets are bit masks (bit s: seat s), small enough (N <= 10) to index tables: the seat of
# a set's lowest bit, and how many seats a set holds. Finding the next seat to act is then one
# lookup, not a walk past every seat that folded, each a branch the CPU mispredicts.
_SETS = np.arange(1 << MAX_SEATS)
LOWEST_SEAT = np.array([(m & -m).bit_length() - 1 for m in _SETS.tolist()], dtype=np.int64)
SEAT_COUNT = np.array([m.bit_count() for m in _SETS.tolist()], dtype=np.int64)


@njit(cache=True, inline="always")
def start_hand(n, contrib):
    """Post the blinds into ``contrib``; returns the set of seats in the hand (all of them)."""
    contrib[:] = 0
    sb, bb = blind_seats(n)
    contrib[sb] = 1
    contrib[bb] = 2
    return (1 << n) - 1


@njit(cache=True, inline="always")
def betting_round(
    street,
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
):
    """Play one street's betting among the seats in ``active`` (a bit mask); returns the
    seats still in afterwards.

    ``equity`` is the deal's (N, 4, N-1) array; ``seat_hole[s]`` / ``seat_player[s]`` say which
    hole pair and which player sit at seat s. Preflop uses the fixed policy, later streets the
    players' genes (each consulted gene is marked in ``used``). ``contrib`` holds each seat's
    chips in the pot and grows with the bets; ``street_contrib`` is scratch space of length N.
    """
    n = seat_hole.shape[0]
    size = bet_size(street)
    street_contrib[:] = 0
    if street == 0:
        sb, bb = blind_seats(n)
        street_contrib[sb] = 1
        street_contrib[bb] = 2
        current = 2
        bets = 1
    else:
        current = 0
        bets = 0
    pot = 0  # every chip in so far, kept as the bets go in (a gene's pot-size bucket reads it)
    for s in range(n):
        pot += contrib[s]
    n_active = SEAT_COUNT[active]
    todo = active  # seats in the hand that have not acted since the last bet or raise
    seat = first_to_act(n, street)
    while todo != 0 and n_active > 1:
        ahead = todo >> seat  # the next seat to act, at or after ``seat`` round the table
        seat = seat + LOWEST_SEAT[ahead] if ahead != 0 else LOWEST_SEAT[todo]
        bit = 1 << seat
        h = seat_hole[seat]
        to_call = current - street_contrib[seat]
        others = n_active - 1
        e = equity[h, street, others - 1]
        if street == 0:
            action = preflop_action(e, others, raise_factor, call_factor)
        else:
            p = seat_player[seat]
            # (to_call is a multiple of size, 2 or 4: a shift, not a division)
            bets_to_call = to_call >> 1 if size == SMALL_BET else to_call >> 2
            g = gene_index(street, others, SEAT_COUNT[todo] - 1, bets_to_call, pot)
            used[p, g] = True
            action = gene_action(decision_value(e), genes[p, g, 0], genes[p, g, 1])
        if action == RAISE and bets >= MAX_BETS:
            action = CALL
        if action == FOLD and to_call == 0:
            action = CALL
        if action == RAISE:
            current += size
            bets += 1
            pay = current - street_contrib[seat]
            street_contrib[seat] += pay
            contrib[seat] += pay
            pot += pay
            todo = active & ~bit
        elif action == CALL:
            street_contrib[seat] += to_call
            contrib[seat] += to_call
            pot += to_call
            todo &= ~bit
        else:
            active &= ~bit
            n_active -= 1
            todo &= ~bit
        seat += 1  # (round the table without a division)
        if seat == n:
            seat = 0
    return active


@njit(cache=True, inline="always")
def settle(strength, seat_hole, contrib, active, net_by_seat):
    """Each seat's net chips: the pot split among the best hands in ``active`` (a bit mask),
    or all of it to the last one in."""
    n = seat_hole.shape[0]
    alone = SEAT_COUNT[active] == 1
    pot = 0.0
    best = -1
    winners = 0
    for s in range(n):
        pot += contrib[s]
        net_by_seat[s] = -contrib[s]
        if (active >> s) & 1:
            v = 0 if alone else strength[seat_hole[s]]
            if v > best:
                best = v
                winners = 1
            elif v == best:
                winners += 1
    share = pot / winners
    for s in range(n):
        if (active >> s) & 1 and (alone or strength[seat_hole[s]] == best):
            net_by_seat[s] += share


@njit(cache=True, inline="always")
def play_streets(
    first_street,
    active,
    equity,
    strength,
    seat_hole,
    seat_player,
    genes,
    raise_factor,
    call_factor,
    used,
    net_by_seat,
    contrib,
    street_contrib,
):
    """Play a hand from ``first_street`` on (``active`` and ``contrib`` as the earlier streets
    left them) and settle it: each seat's net chips go into ``net_by_seat``, each consulted
    gene is marked in ``used``."""
    for street in range(first_street, 4):
        if SEAT_COUNT[active] == 1:
            break
        active = betting_round(
            street, active, equity, seat_hole, seat_player, genes, raise_factor, call_factor,
            used, contrib, street_contrib,
        )  # fmt: skip
    settle(strength, seat_hole, contrib, active, net_by_seat)


@njit(cache=True)
def _play_deals_kernel(equity, strength, genes, raise_factor, call_factor, net, used):
    n_deals, n = strength.shape
    seat_hole = np.empty(n, dtype=np.int64)
    seat_player = np.empty(n, dtype=np.int64)
    net_by_seat = np.empty(n, dtype=np.float64)
    contrib = np.empty(n, dtype=np.int64)
    street_contrib = np.empty(n, dtype=np.int64)
    # Preflop follows the fixed policy, which reads the seat's hole pair and not who sits
    # there: with the hole pairs dealt as rotation b deals them, every seating a plays the same
    # preflop. It is played once per (deal, b) and each later seating starts from its end.
    pre_contrib = np.empty((n, n), dtype=np.int64)
    pre_active = np.empty(n, dtype=np.int64)
    for d in range(n_deals):
        deal_equity, deal_strength = equity[d], strength[d]  # (views made once a deal)
        for a in range(n):
            for s in range(n):
                seat_player[s] = (s - a + n) % n
            for b in range(n):
                for s in range(n):
                    seat_hole[s] = (s + b) % n
                if a == 0:
                    active = start_hand(n, contrib)
                    active = betting_round(
                        0, active, deal_equity, seat_hole, seat_player, genes, raise_factor,
                        call_factor, used, contrib, street_contrib,
                    )  # fmt: skip
                    pre_contrib[b] = contrib
                    pre_active[b] = active
                else:
                    contrib[:] = pre_contrib[b]
                    active = pre_active[b]
                play_streets(
                    1, active, deal_equity, deal_strength, seat_hole, seat_player, genes,
                    raise_factor, call_factor, used, net_by_seat, contrib, street_contrib,
                )  # fmt: skip
                for s in range(n):
                    net[d, seat_player[s]] += net_by_seat[s]


@dataclass(frozen=True)
class PlayResult:
    """Outcome of a table composition over a deal set.

    ``net_per_deal[d, p]``: chips player p won on deal d over its N x N rotations;
    ``used[p, g]``: whether player p consulted gene g; ``hands``: hands played.
    """

    net_per_deal: np.ndarray
    used: np.ndarray
    hands: int

    @property
    def net(self) -> np.ndarray:
        return self.net_per_deal.sum(axis=0)

    def bb_per_100(self) -> np.ndarray:
        """Each player's winnings in big blinds (2 chips) per 100 hands."""
        return self.net / 2.0 / self.hands * 100.0


def play_deals(
    equity: np.ndarray,
    strength: np.ndarray,
    chromosomes: np.ndarray,
    raise_factor: float = DEFAULT_RAISE_FACTOR,
    call_factor: float = DEFAULT_CALL_FACTOR,
) -> PlayResult:
    """Play every rotation of every deal with ``chromosomes[p]`` as player p.

    ``equity``: (D, N, 4, N-1) float32; ``strength``: (D, N) int32; ``chromosomes``:
    (N, 540, 2) int8 with lo <= hi.
    """
    equity = np.ascontiguousarray(equity, dtype=np.float32)
    strength = np.ascontiguousarray(strength, dtype=np.int32)
    genes = np.ascontiguousarray(chromosomes, dtype=np.int8)
    n_deals, n = strength.shape
    if not MIN_SEATS <= n <= MAX_SEATS:
        raise ValueError(f"a table has {MIN_SEATS}..{MAX_SEATS} seats, got {n}")
    if equity.shape != (n_deals, n, 4, n - 1):
        raise ValueError(f"equity must have shape {(n_deals, n, 4, n - 1)}, got {equity.shape}")
    if genes.shape != (n, N_GENES, 2):
        raise ValueError(f"chromosomes must have shape {(n, N_GENES, 2)}, got {genes.shape}")
    net = np.zeros((n_deals, n), dtype=np.float64)
    used = np.zeros((n, N_GENES), dtype=np.bool_)
    _play_deals_kernel(equity, strength, genes, float(raise_factor), float(call_factor), net, used)
    return PlayResult(net, used, n_deals * n * n)
