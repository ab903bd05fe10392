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
    bet_size,
    blind_seats,
    decision_value,
    first_to_act,
    gene_action,
    gene_index,
    preflop_action,
)


@njit(cache=True)
def start_hand(n, contrib, active):
    """Post the blinds; returns the number of active players."""
    contrib[:] = 0
    active[:] = True
    sb, bb = blind_seats(n)
    contrib[sb] = 1
    contrib[bb] = 2
    return n


@njit(cache=True)
def betting_round(
    street,
    n_active,
    equity,
    seat_hole,
    seat_player,
    genes,
    raise_factor,
    call_factor,
    used,
    contrib,
    street_contrib,
    active,
    acted,
):
    """Play one street's betting; returns how many players are still in afterwards.

    ``equity`` is the deal's (N, 4, N-1) array; ``seat_hole[s]`` / ``seat_player[s]`` say which
    hole pair and which player sit at seat s. Preflop uses the fixed policy, later streets the
    players' genes (each consulted gene is marked in ``used``).
    """
    n = seat_hole.shape[0]
    size = bet_size(street)
    street_contrib[:] = 0
    acted[:] = False
    if street == 0:
        sb, bb = blind_seats(n)
        street_contrib[sb] = 1
        street_contrib[bb] = 2
        current = 2
        bets = 1
    else:
        current = 0
        bets = 0
    seat = first_to_act(n, street)
    pending = n_active  # active players who have not acted since the last bet or raise
    while pending > 0 and n_active > 1:
        if active[seat] and not acted[seat]:
            h = seat_hole[seat]
            to_call = current - street_contrib[seat]
            others = n_active - 1
            e = equity[h, street, others - 1]
            if street == 0:
                action = preflop_action(e, others, raise_factor, call_factor)
            else:
                p = seat_player[seat]
                pot = 0
                for s in range(n):
                    pot += contrib[s]
                g = gene_index(street, others, pending - 1, to_call // size, pot)
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
                acted[:] = False
                acted[seat] = True
                pending = n_active - 1
            elif action == CALL:
                street_contrib[seat] += to_call
                contrib[seat] += to_call
                acted[seat] = True
                pending -= 1
            else:
                active[seat] = False
                n_active -= 1
                pending -= 1
        seat = (seat + 1) % n
    return n_active


@njit(cache=True)
def settle(strength, seat_hole, contrib, active, n_active, net_by_seat):
    """Each seat's net chips: the pot split among the best active hands (or the last one in)."""
    n = seat_hole.shape[0]
    pot = 0.0
    best = -1
    winners = 0
    for s in range(n):
        pot += contrib[s]
        net_by_seat[s] = -contrib[s]
        if active[s]:
            v = strength[seat_hole[s]] if n_active > 1 else 0
            if v > best:
                best = v
                winners = 1
            elif v == best:
                winners += 1
    share = pot / winners
    for s in range(n):
        if active[s] and (n_active == 1 or strength[seat_hole[s]] == best):
            net_by_seat[s] += share


@njit(cache=True)
def play_hand(
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
    active,
    acted,
):
    """Play one hand; writes each seat's net chips into ``net_by_seat`` and marks ``used``.

    ``strength`` holds the deal's (N,) showdown values; the last four arrays are scratch
    space of length N.
    """
    n_active = start_hand(seat_hole.shape[0], contrib, active)
    for street in range(4):
        n_active = betting_round(
            street,
            n_active,
            equity,
            seat_hole,
            seat_player,
            genes,
            raise_factor,
            call_factor,
            used,
            contrib,
            street_contrib,
            active,
            acted,
        )
        if n_active == 1:
            break
    settle(strength, seat_hole, contrib, active, n_active, net_by_seat)


@njit(cache=True)
def _play_deals_kernel(equity, strength, genes, raise_factor, call_factor, net, used):
    n_deals, n = strength.shape
    seat_hole = np.empty(n, dtype=np.int64)
    seat_player = np.empty(n, dtype=np.int64)
    net_by_seat = np.empty(n, dtype=np.float64)
    contrib = np.empty(n, dtype=np.int64)
    street_contrib = np.empty(n, dtype=np.int64)
    active = np.empty(n, dtype=np.bool_)
    acted = np.empty(n, dtype=np.bool_)
    for d in range(n_deals):
        for a in range(n):
            for s in range(n):
                seat_player[s] = (s - a + n) % n
            for b in range(n):
                for s in range(n):
                    seat_hole[s] = (s + b) % n
                play_hand(
                    equity[d],
                    strength[d],
                    seat_hole,
                    seat_player,
                    genes,
                    raise_factor,
                    call_factor,
                    used,
                    net_by_seat,
                    contrib,
                    street_contrib,
                    active,
                    acted,
                )
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
