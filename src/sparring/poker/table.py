"""A readable, slow reference of one fixed-limit hand, with a trace.

It follows the same rules as the engine kernel (the scalar helpers in ``rules.py``) but is
plain Python, written for reading: tests check the kernel against it, ``sparring poker replay``
prints its trace, and the table-engine benchmark uses it as the pure-Python baseline.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sparring.poker.cards import format_cards
from sparring.poker.rules import (
    ACTION_NAMES,
    CALL,
    DEFAULT_CALL_FACTOR,
    DEFAULT_RAISE_FACTOR,
    FOLD,
    MAX_BETS,
    RAISE,
    STREET_NAMES,
    bet_size,
    blind_seats,
    decision_value,
    first_to_act,
    gene_action,
    gene_index,
    preflop_action,
)


@dataclass
class HandTrace:
    """What happened in one hand: the lines to print, nets per seat, genes consulted, and
    every action as played (street 0..3, seat, FOLD/CALL/RAISE; a raise over the cap is
    logged as the call it became, a fold with nothing owed as the check)."""

    lines: list[str] = field(default_factory=list)
    net_by_seat: list[float] = field(default_factory=list)
    used: set[tuple[int, int]] = field(default_factory=set)  # (player, gene)
    actions: list[tuple[int, int, int]] = field(default_factory=list)


def seating(n: int, rotation: int) -> tuple[list[int], list[int]]:
    """(hole pair per seat, player per seat) of a rotation ``a * n + b``."""
    a, b = divmod(rotation, n)
    return [(s + b) % n for s in range(n)], [(s - a) % n for s in range(n)]


def play_hand_reference(
    equity: np.ndarray,
    strength: np.ndarray,
    seat_hole: list[int],
    seat_player: list[int],
    chromosomes: np.ndarray,
    raise_factor: float = DEFAULT_RAISE_FACTOR,
    call_factor: float = DEFAULT_CALL_FACTOR,
    board: np.ndarray | None = None,
    holes: np.ndarray | None = None,
) -> HandTrace:
    """Play one hand step by step; ``board``/``holes`` (cards) only make the trace readable."""
    n = len(seat_hole)
    trace = HandTrace()
    say = trace.lines.append
    contrib = [0] * n
    active = [True] * n
    sb, bb = blind_seats(n)
    contrib[sb], contrib[bb] = 1, 2

    def who(seat: int) -> str:
        cards = f" [{format_cards(holes[seat_hole[seat]])}]" if holes is not None else ""
        return f"seat {seat} (player {seat_player[seat]}){cards}"

    say(f"{who(sb)} posts the small blind 1")
    say(f"{who(bb)} posts the big blind 2")
    for street in range(4):
        if sum(active) == 1:
            break
        size = bet_size(street)
        if street == 0:
            street_contrib = [0] * n
            street_contrib[sb], street_contrib[bb] = 1, 2
            current, bets = 2, 1
        else:
            street_contrib = [0] * n
            current, bets = 0, 0
            shown = format_cards(board[: street + 2]) if board is not None else ""
            say(f"-- {STREET_NAMES[street]} {shown} (pot {sum(contrib)})")
        acted = [False] * n
        seat = first_to_act(n, street)
        while sum(active) > 1 and any(active[s] and not acted[s] for s in range(n)):
            if not active[seat] or acted[seat]:
                seat = (seat + 1) % n
                continue
            h, p = seat_hole[seat], seat_player[seat]
            to_call = current - street_contrib[seat]
            others = sum(active) - 1
            e = float(equity[h, street, others - 1])
            if street == 0:
                action = preflop_action(e, others, raise_factor, call_factor)
                why = f"equity {e:.3f} vs {others}"
            else:
                to_act = sum(1 for s in range(n) if s != seat and active[s] and not acted[s])
                g = gene_index(street, others, to_act, to_call // size, sum(contrib))
                trace.used.add((p, g))
                lo, hi = int(chromosomes[p, g, 0]), int(chromosomes[p, g, 1])
                v = decision_value(e)
                action = gene_action(v, lo, hi)
                why = f"v {v} vs gene {g} [{lo}, {hi}]"
            if action == RAISE and bets >= MAX_BETS:
                action = CALL
            if action == FOLD and to_call == 0:
                action = CALL
            if action == RAISE:
                current += size
                bets += 1
                pay = current - street_contrib[seat]
                word = "bets" if bets == 1 else "raises"
                acted = [False] * n
            elif action == CALL:
                pay = to_call
                word = "calls" if to_call else "checks"
            else:
                pay = 0
                active[seat] = False
                word = "folds"
            trace.actions.append((street, seat, action))
            street_contrib[seat] += pay
            contrib[seat] += pay
            acted[seat] = action != FOLD or acted[seat]
            say(f"{who(seat)} {word}{f' {pay}' if pay else ''}  ({why}; {ACTION_NAMES[action]})")
            seat = (seat + 1) % n
    pot = float(sum(contrib))
    alive = [s for s in range(n) if active[s]]
    if len(alive) == 1:
        winners = alive
        say(f"{who(alive[0])} wins the pot of {pot:g} uncontested")
    else:
        best = max(int(strength[seat_hole[s]]) for s in alive)
        winners = [s for s in alive if int(strength[seat_hole[s]]) == best]
        shown = format_cards(board) if board is not None else ""
        say(f"-- showdown {shown} (pot {pot:g})")
        for s in alive:
            say(f"{who(s)} shows strength {int(strength[seat_hole[s]])}")
        say(
            f"{', '.join(who(s) for s in winners)} win{'s' if len(winners) == 1 else ''} "
            f"{pot / len(winners):g} each"
            if len(winners) > 1
            else f"{who(winners[0])} wins {pot:g}"
        )
    trace.net_by_seat = [-float(c) for c in contrib]
    for s in winners:
        trace.net_by_seat[s] += pot / len(winners)
    return trace
