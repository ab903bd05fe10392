"""Expected harma consumption, the oracle's drift and the optimal policy by dynamic programming.

Guessing card c consumes in expectation ``d(c) = p(c) + 2 p_S(s) + 2 p_N(n) - 2`` harma
(3 P(exact) - 2 P(both wrong)). The oracle guesses argmax d; its drift d* > 0 means the game
finishes. ``expected_guesses`` evaluates a policy over harma exactly (a banded linear system per
policy, policy iteration for the optimum).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sparring.eleusis.cards import N_CARDS
from sparring.eleusis.limits import MAX_H0


@njit(cache=True)
def d_values(p, out):
    """d(c) for every card of a (not necessarily normalised) weight vector ``p`` (52,)."""
    total = 0.0
    for c in range(N_CARDS):
        total += p[c]
    if total <= 0.0:
        for c in range(N_CARDS):
            out[c] = 1.0 / 52 + 0.5 + 2.0 / 13 - 2.0
        return
    suit = np.zeros(4)
    number = np.zeros(13)
    for c in range(N_CARDS):
        suit[c // 13] += p[c]
        number[c % 13] += p[c]
    for c in range(N_CARDS):
        out[c] = (p[c] + 2.0 * suit[c // 13] + 2.0 * number[c % 13]) / total - 2.0


@njit(cache=True)
def best_card(p, scratch) -> int:
    """argmax d (the lowest index on ties)."""
    d_values(p, scratch)
    best = 0
    for c in range(1, N_CARDS):
        if scratch[c] > scratch[best]:
            best = c
    return best


def d_of(p: np.ndarray) -> np.ndarray:
    out = np.empty(N_CARDS)
    d_values(np.asarray(p, dtype=np.float64), out)
    return out


def oracle_drift(p: np.ndarray) -> float:
    """d* = max d: the oracle's expected harma consumed per guess."""
    return float(d_of(p).max())


def outcome_probabilities(p: np.ndarray) -> np.ndarray:
    """(P(-3), P(0), P(+2)) per card, shape (52, 3)."""
    p = np.asarray(p, dtype=np.float64) / np.sum(p)
    suit = p.reshape(4, 13).sum(axis=1)
    number = p.reshape(4, 13).sum(axis=0)
    ps = np.repeat(suit, 13)
    pn = np.tile(number, 4)
    exact = p
    wrong = 1 - ps - pn + p
    return np.stack([exact, 1 - exact - wrong, wrong], axis=1)


LOWER, UPPER = 3, 2  # the system's band: V(h) couples V(h-3) below and V(h+2) above
MARGIN = 300  # harmas evaluated above h0 before the linear regime takes over


def _evaluate(probs: np.ndarray, policy: np.ndarray, top: int, drift: float) -> np.ndarray:
    """V(1..top) of a policy: V(h) = 1 + a V(h-3) + b V(h) + c V(h+2), V(h<=0) = 0, and
    V(h) = V(top) + (h - top) / drift above ``top`` (the linear regime far from zero).

    The system is banded (3 below the diagonal, 2 above), solved in O(top) time and memory
    (``scipy.linalg.solve_banded``): a dense matrix would need top² floats."""
    from scipy.linalg import solve_banded

    abc = probs[policy[:top]]  # (top, 3): a, b, c of the card played at each harma
    a, b, c = abc[:, 0], abc[:, 1], abc[:, 2]
    # banded storage: row UPPER + i - j of column j holds matrix[i, j]
    band = np.zeros((LOWER + UPPER + 1, top))
    rows = np.arange(top)
    band[UPPER, rows] = 1 - b
    below = rows[rows >= 3]  # matrix[i, i - 3] = -a_i
    band[UPPER + 3, below - 3] = -a[below]
    up = rows + 2  # matrix[i, i + 2] = -c_i, or onto V(top) with its slope beyond it
    inside = up <= top - 1
    band[UPPER - 2, up[inside]] = -c[inside]
    rhs = np.ones(top)
    for i in rows[~inside]:  # the last two harmas step past the top
        band[UPPER + i - (top - 1), top - 1] -= c[i]
        rhs[i] += c[i] * (i + 1 + 2 - top) / drift
    return solve_banded((LOWER, UPPER), band, rhs)


def expected_guesses(
    p: np.ndarray, h0: int, optimal: bool = False, margin: int = MARGIN
) -> tuple[float, np.ndarray]:
    """Expected guesses from harma ``h0`` of the greedy oracle (or the optimal policy), and
    the policy (best card per harma 1..h0+margin). ``inf`` when the deck cannot finish."""
    if not 1 <= h0 <= MAX_H0:
        raise ValueError(f"h0={h0}: the exact evaluation takes a harma in 1..{MAX_H0}")
    drift = oracle_drift(p)
    top = h0 + margin
    greedy = int(np.argmax(d_of(p)))
    policy = np.full(top, greedy, dtype=np.int64)
    if drift <= 0:
        return float("inf"), policy
    probs = outcome_probabilities(p)
    values = _evaluate(probs, policy, top, drift)
    if optimal:
        for _ in range(100):  # policy iteration: converges in a handful of rounds
            padded = np.concatenate([np.zeros(3), values, values[-1] + np.arange(1, 3) / drift])
            h = np.arange(1, top + 1)
            down = padded[h - 3 + 2]  # V(h-3), index shift for the 3 zeros (V(-2..0) = 0)
            same = padded[h + 2]
            up = padded[h + 4]
            cost = 1 + probs[:, 0:1] * down + probs[:, 1:2] * same + probs[:, 2:3] * up
            new_policy = np.argmin(cost, axis=0)
            # keep the current action unless another is strictly better (no flip-flopping)
            keep = cost[policy, h - 1] <= cost[new_policy, h - 1] + 1e-12
            new_policy = np.where(keep, policy, new_policy)
            if np.array_equal(new_policy, policy):
                break
            policy = new_policy
            values = _evaluate(probs, policy, top, drift)
    return float(values[h0 - 1]), policy
