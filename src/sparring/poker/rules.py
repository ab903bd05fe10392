"""Fixed-limit hold'em rules and the two policies, as scalar numba helpers.

Both the fast engine (``engine.py``) and the readable reference (``table.py``) call these, so
the rules live in one place. Conventions (specs/poker.md §6):

- N seats, button at seat N-1, small blind seat 0 (1 chip), big blind seat 1 (2 chips); for
  N = 2 the button (seat 1) posts the small blind and acts first preflop, seat 0 posts the big
  blind and acts first after the flop. For N >= 3 preflop starts at seat 2 (mod N), later
  streets at seat 0.
- Small bet 2 (preflop, flop), big bet 4 (turn, river); at most 4 bets per street, the big blind
  counting as the first preflop bet. A fold when nothing is owed is a check; a raise at the cap
  is a call.

Chromosome genes (540): street (flop, turn, river) x active opponents (1, 2, 3, 4, 5+) x
players still to act after this one in the round (0, 1, 2+) x bets to call (0, 1, 2, 3+) x pot
in big bets (< 3, 3-6, >= 6). "Still to act" counts the active players who have not acted since
the last bet or raise (they would act again before the round closes); the pot counts every chip
put in so far, including this street's.
"""

from __future__ import annotations

import numpy as np
from numba import njit

FOLD, CALL, RAISE = 0, 1, 2
ACTION_NAMES = ("fold", "call", "raise")
STREET_NAMES = ("preflop", "flop", "turn", "river")
SMALL_BET, BIG_BET = 2, 4
MAX_BETS = 4
DEFAULT_RAISE_FACTOR, DEFAULT_CALL_FACTOR = 1.6, 1.1


@njit(cache=True)
def bet_size(street: int) -> int:
    """Chips per bet on a street (0 preflop ... 3 river)."""
    return SMALL_BET if street < 2 else BIG_BET


@njit(cache=True)
def gene_index(street: int, opponents: int, to_act: int, bets_to_call: int, pot: int) -> int:
    """The gene of a postflop situation; ``street`` 1..3, ``pot`` in chips."""
    opp_bucket = min(opponents, 5) - 1
    act_bucket = min(to_act, 2)
    call_bucket = min(bets_to_call, 3)
    if pot < 3 * BIG_BET:
        pot_bucket = 0
    elif pot < 6 * BIG_BET:
        pot_bucket = 1
    else:
        pot_bucket = 2
    return (((street - 1) * 5 + opp_bucket) * 3 + act_bucket) * 4 * 3 + call_bucket * 3 + pot_bucket


@njit(cache=True)
def decision_value(equity: float) -> int:
    """``v = round(200 e - 100)`` (halves round up), the value compared with a gene."""
    return int(np.floor(200.0 * equity - 100.0 + 0.5))


@njit(cache=True)
def gene_action(v: int, lo: int, hi: int) -> int:
    """``v < lo`` fold, ``lo <= v < hi`` call, ``v >= hi`` raise."""
    if v >= hi:
        return RAISE
    if v >= lo:
        return CALL
    return FOLD


@njit(cache=True)
def preflop_action(equity: float, others: int, raise_factor: float, call_factor: float) -> int:
    """The fixed preflop policy against ``others`` players still in (fair share 1/(k+1))."""
    fair = 1.0 / (others + 1)
    if equity >= raise_factor * fair:
        return RAISE
    if equity >= call_factor * fair:
        return CALL
    return FOLD


@njit(cache=True)
def first_to_act(n_seats: int, street: int) -> int:
    """Seat that opens a street."""
    if n_seats == 2:
        return 1 if street == 0 else 0
    return 2 % n_seats if street == 0 else 0


@njit(cache=True)
def blind_seats(n_seats: int) -> tuple[int, int]:
    """(small blind seat, big blind seat)."""
    if n_seats == 2:
        return 1, 0
    return 0, 1
