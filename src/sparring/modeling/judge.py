"""The judge: turns estimates into betting decisions (specs/player_model.md §9).

Hand strength is the mid-rank percentile q of the hand in the lance (the share of hands it
beats). A lance is won by the better pair, so the win chance of a hand at q, with a partner at
an unknown (uniform) percentile, against an opponent whose hand is *weak* (percentile below
0.40) with probability w and whose partner is uniform, is

    P(max(q, U₁) > max(X, U₂)),  X ~ w·U(0, 0.4) + (1 − w)·U(0.4, 1),

computed in closed form by ``win_probability``. The opponent's w is what the model supplies:
the bettor's bluff frequency when answering a bet, the caller's risk tolerance when betting.

Decisions compare expected tantos:
- answer a bet: accepting is worth (2P − 1)·S (S the stake if accepted), refusing −R (R the
  tantos the bettor's team then takes); accept when (2P − 1)·S > −R. An órdago is valued at
  what the opponents still need to win the juego.
- open: a bet of B is worth f·R₀ + (1 − f)(2P_c − 1)·B, with f the chance that it is refused
  (the answerer's rejection rate), R₀ = 1 and P_c the win chance against an accepting hand; a
  pass is worth (2P_u − 1) with P_u the win chance against a uniform hand (in grande and chica
  the lance is then played "en paso" for one tanto) — unless the next opponent bets after the
  pass (his aggression), when the pass is worth the better of accepting and refusing that bet.
The judge never raises and never bets an órdago: it keeps the comparison simple to explain.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

WEAK = 0.40


def _cdf_opponent(a: float, w: float) -> float:
    weak = min(a / WEAK, 1.0)
    strong = min(max((a - WEAK) / (1 - WEAK), 0.0), 1.0)
    return w * weak + (1 - w) * strong


_GRID = (np.arange(1024) + 0.5) / 1024


def win_probability(q: float, weak_share: float, partner_max: float = 1.0) -> float:
    """P(our pair wins the lance on cards) for our hand at percentile ``q`` (see the module
    docstring). ``weak_share`` = 0.4 is an opponent with a uniform hand. ``partner_max`` < 1
    says our partner's percentile is uniform below it (he has just refused the bet)."""
    q = min(max(q, 0.0), 1.0)
    if partner_max < 1.0:
        return _win_probability_grid(q, weak_share, max(partner_max, 1e-9))
    w = min(max(weak_share, 0.0), 1.0)
    # P(A > B) = q·F_B(q) + ∫_q^1 F_B(a) da with F_B(a) = F_X(a)·a
    at_q = q * q * _cdf_opponent(q, w)
    if q < WEAK:
        weak_part = (WEAK**3 - q**3) / (3 * WEAK) + (1 - WEAK**2) / 2
    else:
        weak_part = (1 - q**2) / 2
    low = max(q, WEAK)
    strong_part = ((1 / 3 - WEAK / 2) - (low**3 / 3 - WEAK * low**2 / 2)) / (1 - WEAK)
    return at_q + w * weak_part + (1 - w) * strong_part


def _win_probability_grid(q: float, w: float, partner_max: float) -> float:
    # P(A > B) = ∫ F_B(a) dF_A(a), A = max(q, U(0, m)), B = max(X, U(0, 1)): a jump of
    # P(U ≤ q) at q, then the density 1/m on (q, m)
    w, a = min(max(w, 0.0), 1.0), _GRID
    weak = np.minimum(a / WEAK, 1.0)
    strong = np.clip((a - WEAK) / (1 - WEAK), 0.0, 1.0)
    f_b = (w * weak + (1 - w) * strong) * a
    at_q = min(q / partner_max, 1.0) * _cdf_opponent(q, w) * q
    above = (a > q) & (a < partner_max)
    return float(at_q + f_b[above].sum() / len(a) / partner_max)


def accept_threshold(weak_share: float, stake: int, refusal: int) -> float:
    """The percentile above which ``answer`` accepts (bisection; 1 if it never does)."""
    need = (1 - refusal / stake) / 2
    if win_probability(1.0, weak_share) <= need:
        return 1.0
    lo, hi = 0.0, 1.0
    for _ in range(30):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if win_probability(mid, weak_share) <= need else (lo, mid)
    return hi


@dataclass(frozen=True)
class Decision:
    """What the judge chose and why (the numbers it compared)."""

    act: str  # "quiero" | "no_quiero" | "envido" | "paso"
    p_win: float
    value_act: float
    value_other: float


def answer(p_win: float, stake: int, refusal: int) -> Decision:
    """Accept or refuse a bet of ``stake`` (won with probability ``p_win``) whose refusal gives
    ``refusal`` tantos away."""
    accept, refuse = (2 * p_win - 1) * stake, -float(refusal)
    return Decision("quiero" if accept > refuse else "no_quiero", p_win, accept, refuse)


def open_bet(
    p_called: float,
    p_uniform: float,
    fold: float,
    bet: int = 2,
    reply_bet: float = 0.0,
    p_vs_bettor: float = 0.5,
    reply_size: float = 2.0,
) -> Decision:
    """Bet ``bet`` or pass. ``fold``: the chance the bet is refused; ``p_called``: the win
    chance when it is accepted; ``p_uniform``: the win chance if nobody bets. After a pass the
    next opponent bets ``reply_size`` with probability ``reply_bet`` (his aggression), and the
    bot then answers as ``answer`` would, winning with ``p_vs_bettor``."""
    value_bet = fold * 1 + (1 - fold) * (2 * p_called - 1) * bet
    facing = max((2 * p_vs_bettor - 1) * reply_size, -1.0)
    value_pass = reply_bet * facing + (1 - reply_bet) * (2 * p_uniform - 1)
    act = "envido" if value_bet > value_pass else "paso"
    return Decision(act, p_called, value_bet, value_pass)
