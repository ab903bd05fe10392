"""Scientists: choose a guess, learn from its feedback. Numba kernels, one game loop.

Every scientist chooses by the expected harma ``d`` of its current belief, never by the mode.

- ``frequency``: the report's baseline. A 4 x 13 frequency matrix M (start 0); each feedback
  spreads one unit of mass uniformly over the cards consistent with it (1, 12, 3 or 36 cards);
  guess argmax d under M; reset M when the harma accumulated since the last reset exceeds the
  threshold (default 50).
- ``greedy_frequency``: the same without the reset.
- ``beta_thompson``: independent Beta posteriors for each suit, number and card (priors with the
  uniform deck's means: Beta(1, 3), Beta(1, 12), Beta(1, 51)); Thompson sampling on d with
  p(c) <= min(p_S, p_N).
- ``dirichlet_gibbs``: a Dirichlet(alpha) posterior over the 52 cards by Gibbs data
  augmentation (each observation's hidden card imputed within its feedback set; two sweeps
  per guess, warm-started), Thompson sampling on d.
- ``em_greedy``: the same model's MAP estimate by one EM step per guess; greedy on d.
- ``kl_ucb``: counts for suits and numbers (priors Beta(1, 3), Beta(1, 12)) and a card's
  chance with the product of its suit and number as prior (weight 4); chooses by d at the
  KL-UCB upper bounds of the three rates (bound c·log(t + 2), c = 0.5): every
  feedback tells whether the suit and whether the number were right, so suits and numbers are
  bandit arms observed directly, and optimism tries them in turn instead of at random.
- ``oracle`` (knows p: argmax d), ``optimal`` (knows p: the value-iteration policy per
  harma) and ``informed`` (knows the deck's family, not the deck: a Bayesian over the family's
  decks, see ``informed``) are references.

Random choices use numba's generator, seeded per game; the drawn cards come from the game's own
stream (``env``), so every scientist faces the same card sequence for a (deck, seed). The names,
kinds and parameters of the scientists are in ``roster``.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import Any

import numpy as np
from numba import _helperlib as _numba_helperlib
from numba import njit

from sparring.eleusis.cards import N_CARDS, N_NUMBERS, N_SUITS
from sparring.eleusis.feedback import feedback_code, harma_change, number_of, suit_of
from sparring.eleusis.hypotheses import hypotheses
from sparring.eleusis.informed import informed_choose, informed_observe
from sparring.eleusis.roster import (
    BETA_THOMPSON,
    DEFAULT_PARAM,
    DIRICHLET_GIBBS,
    EM_GREEDY,
    FREQUENCY,
    GREEDY_FREQUENCY,
    INFORMED,
    KL_UCB,
    NAMES,
    OPTIMAL,
)
from sparring.eleusis.theory import best_card, d_values
from sparring.seeding import next_u64, uniform

NO_HYPOTHESES = np.full((1, N_CARDS), 1.0 / N_CARDS)  # what the others get in the hyps slot
GIBBS_SWEEPS = 2  # per guess: one sweep mixes too slowly (2.09x the oracle on best != mode,
# 2 sweeps 1.79x; 4 sweeps no better, at half the speed)


# The Beta counters ``ab`` (row 0 successes, row 1 failures) of the Beta-Thompson and KL-UCB
# scientists, one column per rate: the 4 suits, then the 13 numbers, then the 52 cards.
SUIT_SLOT = 0
NUMBER_SLOT = SUIT_SLOT + N_SUITS  # 4
CARD_SLOT = NUMBER_SLOT + N_NUMBERS  # 17
N_RATE_SLOTS = CARD_SLOT + N_CARDS  # 69
SUCCESS, FAILURE = 0, 1
# How many cards a feedback leaves possible: suit only (12 other numbers of that suit), number
# only (3 other suits), neither (36), both (the card itself).
CARDS_SAME_SUIT, CARDS_SAME_NUMBER, CARDS_NEITHER = 12, 3, 36


@njit(cache=True)
def spread(weights, guess, code):
    """Add one unit of mass spread uniformly over the cards consistent with a feedback."""
    if code == 3:
        weights[guess] += 1.0
        return
    share = 1.0 / (
        CARDS_SAME_SUIT if code == 1 else CARDS_SAME_NUMBER if code == 2 else CARDS_NEITHER
    )
    for c in range(N_CARDS):
        if feedback_code(guess, c) == code:
            weights[c] += share


@njit(cache=True)
def reset(kind, param, weights, ab, groups, scal):
    """Initial belief of a scientist."""
    groups[:] = 0
    scal[:] = 0.0
    if kind == FREQUENCY or kind == GREEDY_FREQUENCY:
        weights[:] = 0.0
    else:
        weights[:] = 1.0 / N_CARDS
    # Beta(1, k - 1) priors: one suit in 4, one number in 13, one card in 52
    ab[SUCCESS, :] = 1.0
    for i in range(N_RATE_SLOTS):
        ab[FAILURE, i] = (
            N_SUITS - 1.0
            if i < NUMBER_SLOT
            else N_NUMBERS - 1.0
            if i < CARD_SLOT
            else N_CARDS - 1.0
        )


@njit(cache=True)
def feedback_mass(weights, guess, code):
    """Total weight of the cards consistent with feedback ``code`` on ``guess``."""
    mass = 0.0
    for c in range(N_CARDS):
        if feedback_code(guess, c) == code:
            mass += weights[c]
    return mass


@njit(cache=True)
def _gibbs_sweep(alpha, weights, groups, imputed):
    imputed[:] = 0.0
    for g in range(N_CARDS):
        for code in range(4):
            count = groups[g, code]
            if count == 0:
                continue
            mass = feedback_mass(weights, g, code)
            left = count
            for c in range(N_CARDS):
                if left == 0 or mass <= 0.0:
                    break
                if feedback_code(g, c) == code:
                    share = min(1.0, weights[c] / mass)
                    k = np.random.binomial(left, share)
                    imputed[c] += k
                    left -= k
                    mass -= weights[c]
    total = 0.0
    for c in range(N_CARDS):
        weights[c] = np.random.gamma(alpha + imputed[c], 1.0)
        total += weights[c]
    for c in range(N_CARDS):
        weights[c] /= total


@njit(cache=True)
def _em_step(alpha, weights, groups, expected):
    expected[:] = 0.0
    for g in range(N_CARDS):
        for code in range(4):
            count = groups[g, code]
            if count == 0:
                continue
            mass = feedback_mass(weights, g, code)
            for c in range(N_CARDS):
                if feedback_code(g, c) == code:
                    expected[c] += count * weights[c] / mass
    total = 0.0
    for c in range(N_CARDS):
        weights[c] = alpha - 1.0 + expected[c]
        total += weights[c]
    for c in range(N_CARDS):
        weights[c] /= total


UCB_CARD_WEIGHT = 4.0  # prior weight of a card's chance at the product of its marginals


@njit(cache=True)
def kl_ucb(a, b, bound):
    """The largest q >= a/(a+b) with (a+b)·KL(a/(a+b), q) <= bound (Bernoulli KL): an upper
    confidence bound that stays inside [0, 1] and is tight for rare events (a number right 4%
    of the time) where a normal bound is not.

    Newton's method from above: f(q) = n·KL(p, q) - bound is convex and increasing on [p, 1),
    so starting at an upper bound of the root it descends monotonically, in about 4 steps
    (a bisection to the same precision took 25). The start is the smaller of Pinsker's bound
    p + sqrt(bound / 2n) and 1 - exp(-(bound/n + H(p)) / (1 - p)) (KL >= -H(p) - (1-p)·log(1-q)),
    which keeps rates near 1 from starting at the wall."""
    n = a + b
    p = min(max(a / n, 1e-12), 1.0 - 1e-12)
    entropy = -p * math.log(p) - (1.0 - p) * math.log(1.0 - p)
    q = min(
        p + math.sqrt(bound / (2.0 * n)),
        1.0 - math.exp(-(bound / n + entropy) / (1.0 - p)),
        1.0 - 1e-12,
    )
    for _ in range(60):
        excess = _kl_excess(n, p, q, bound)
        if excess <= 1e-12 * bound:
            return q
        step = excess * q * (1.0 - q) / (n * (q - p))
        q -= step
        if q <= p:
            return p
        if step < 1e-12:
            break
    # Stopped on a tiny step: near 1, (1 - q) keeps few significant digits and Newton can stop
    # a few ulps above the root, outside the bound; step down until it holds (once is enough).
    for _ in range(8):
        if _kl_excess(n, p, q, bound) <= 1e-12 * bound:
            break
        q = p + (q - p) * (1.0 - 1e-9)
    return q


@njit(cache=True)
def _kl_excess(n, p, q, bound):
    """n·KL(p, q) - bound for Bernoulli rates."""
    return n * (p * math.log(p / q) + (1.0 - p) * math.log((1.0 - p) / (1.0 - q))) - bound


@njit(cache=True)
def choose(kind, param, harma, p_true, policy, hyps, post, weights, ab, groups, scal, scratch):
    """The scientist's next guess (a card index)."""
    if kind == FREQUENCY or kind == GREEDY_FREQUENCY:
        return best_card(weights, scratch)
    if kind == BETA_THOMPSON:
        suit = np.empty(4)
        number = np.empty(13)
        for s in range(4):
            suit[s] = np.random.beta(ab[SUCCESS, SUIT_SLOT + s], ab[FAILURE, SUIT_SLOT + s])
        for n in range(13):
            number[n] = np.random.beta(ab[SUCCESS, NUMBER_SLOT + n], ab[FAILURE, NUMBER_SLOT + n])
        best = 0
        best_d = -1e300
        for c in range(N_CARDS):
            s = suit_of(c)
            n = number_of(c)
            card = np.random.beta(ab[SUCCESS, CARD_SLOT + c], ab[FAILURE, CARD_SLOT + c])
            pc = min(card, suit[s], number[n])
            d = pc + 2.0 * suit[s] + 2.0 * number[n]
            if d > best_d:
                best_d = d
                best = c
        return best
    if kind == KL_UCB:
        bound = param * math.log(scal[2] + 2.0)
        suit = np.empty(4)
        number = np.empty(13)
        for s in range(4):
            suit[s] = kl_ucb(ab[SUCCESS, SUIT_SLOT + s], ab[FAILURE, SUIT_SLOT + s], bound)
        for n in range(13):
            number[n] = kl_ucb(ab[SUCCESS, NUMBER_SLOT + n], ab[FAILURE, NUMBER_SLOT + n], bound)
        best = 0
        best_d = -1e300
        for c in range(N_CARDS):
            s = suit_of(c)
            n = number_of(c)
            marginals = 2.0 * suit[s] + 2.0 * number[n]
            tie = 1e-9 * np.random.random()  # ties broken at random, not by card order
            if min(suit[s], number[n]) + marginals + tie <= best_d:
                continue  # p(c) <= min(p_S, p_N): this card cannot win, skip its bound
            both = ab[SUCCESS, CARD_SLOT + c] - 1.0  # the card's counters start at Beta(1, 51)
            tries = both + ab[FAILURE, CARD_SLOT + c] - (N_CARDS - 1.0)
            prior = UCB_CARD_WEIGHT * suit[s] * number[n]
            pc = kl_ucb(both + prior, tries - both + UCB_CARD_WEIGHT - prior, bound)
            d = min(pc, suit[s], number[n]) + marginals + tie
            if d > best_d:
                best_d = d
                best = c
        return best
    if kind == DIRICHLET_GIBBS:
        for _ in range(GIBBS_SWEEPS):
            _gibbs_sweep(param, weights, groups, scratch)
        return best_card(weights, scratch)
    if kind == EM_GREEDY:
        _em_step(param, weights, groups, scratch)
        return best_card(weights, scratch)
    if kind == INFORMED:
        return informed_choose(hyps, post, weights, scratch)  # weights: the mean deck
    if kind == OPTIMAL and harma <= policy.shape[0]:
        return policy[harma - 1]
    return best_card(p_true, scratch)


@njit(cache=True)
def observe(kind, param, guess, code, hyps, post, weights, ab, groups, scal):
    """Learn from the feedback ``code`` on ``guess``."""
    if kind == FREQUENCY or kind == GREEDY_FREQUENCY:
        spread(weights, guess, code)
        if kind == FREQUENCY:
            scal[0] += harma_change(code)
            if scal[0] > param:  # the report's guard against a local maximum
                weights[:] = 0.0
                scal[0] = 0.0
                scal[1] += 1.0  # resets so far
    elif kind == BETA_THOMPSON or kind == KL_UCB:
        scal[2] += 1.0  # guesses so far
        s = suit_of(guess)
        n = number_of(guess)
        ab[SUCCESS if code & 1 else FAILURE, SUIT_SLOT + s] += 1.0
        ab[SUCCESS if code & 2 else FAILURE, NUMBER_SLOT + n] += 1.0
        ab[SUCCESS if code == 3 else FAILURE, CARD_SLOT + guess] += 1.0
    elif kind == DIRICHLET_GIBBS or kind == EM_GREEDY:
        groups[guess, code] += 1
    elif kind == INFORMED:
        informed_observe(hyps, post, guess, code)


@njit(cache=True)
def draw_card(cdf, state):
    """One card from the deck's cumulative distribution; returns (new state, card)."""
    state, bits = next_u64(state)
    u = uniform(bits)
    card = np.searchsorted(cdf, u, side="right")
    return state, min(card, N_CARDS - 1)


@njit(cache=True)
def play_game(kind, param, cdf, p_true, policy, hyps, h0, cap, env_state, sci_seed):
    """One game: returns (guesses, finished, pseudo-regret sum of d* - d(guess)).

    ``p_true`` and ``policy`` serve the oracle and the optimal policy, ``hyps`` (H, 52) the
    informed reference; the learners ignore them."""
    np.random.seed(sci_seed)
    post = np.full(hyps.shape[0], 1.0 / hyps.shape[0])
    weights = np.empty(N_CARDS)
    ab = np.empty((2, N_RATE_SLOTS))
    groups = np.zeros((N_CARDS, 4), dtype=np.int64)
    scal = np.zeros(4)
    scratch = np.empty(N_CARDS)
    d_true = np.empty(N_CARDS)
    d_values(p_true, d_true)
    d_star = d_true.max()
    reset(kind, param, weights, ab, groups, scal)
    harma = h0
    guesses = 0
    regret = 0.0
    while harma > 0 and guesses < cap:
        g = choose(
            kind, param, harma, p_true, policy, hyps, post, weights, ab, groups, scal, scratch
        )
        env_state, drawn = draw_card(cdf, env_state)
        code = feedback_code(g, drawn)
        harma += harma_change(code)
        guesses += 1
        regret += d_star - d_true[g]
        observe(kind, param, g, code, hyps, post, weights, ab, groups, scal)
    return guesses, harma <= 0, regret


class Scientist:
    """A scientist step by step (for the line protocol): ``guess()``, then ``learn(code)``."""

    def __init__(
        self,
        name: str,
        seed: int = 0,
        param: float | None = None,
        p_true: np.ndarray | None = None,
        h0: int = 100,
        family: str | None = None,
    ) -> None:
        """``p_true``: the deck, for the oracle and the optimal policy; ``family``: the deck's
        family spec (``spike:alpha=0.5``), for the informed reference."""
        if name not in NAMES:
            raise ValueError(f"unknown scientist {name!r}; choose from {', '.join(NAMES)}")
        if name in ("oracle", "optimal") and p_true is None:
            raise ValueError(f"the {name} needs the deck's distribution")
        if name == "informed" and family is None:
            raise ValueError("the informed reference needs the deck's family")
        self.hyps = NO_HYPOTHESES
        if name == "informed" and family is not None:
            self.hyps = hypotheses(family)
        self.post = np.full(len(self.hyps), 1.0 / len(self.hyps))
        self.kind = NAMES.index(name)
        self.param = DEFAULT_PARAM[name] if param is None else float(param)
        self.p_true = np.full(N_CARDS, 1 / N_CARDS) if p_true is None else p_true
        self.policy = np.zeros(0, dtype=np.int64)
        if name == "optimal":
            from sparring.eleusis.theory import expected_guesses

            self.policy = expected_guesses(self.p_true, h0, optimal=True)[1]
        self.harma = h0
        self.weights = np.empty(N_CARDS)
        self.ab = np.empty((2, N_RATE_SLOTS))
        self.groups = np.zeros((N_CARDS, 4), dtype=np.int64)
        self.scal = np.zeros(4)
        self.scratch = np.empty(N_CARDS)
        self._stream = _numba_stream(seed)
        reset(self.kind, self.param, self.weights, self.ab, self.groups, self.scal)
        self._last: int | None = None

    @contextlib.contextmanager
    def _own_stream(self) -> Iterator[None]:
        """Run kernels on this scientist's random stream, leaving any other's as it was.

        The kernels draw from numba's process-wide generator (``play_game`` seeds it once per
        game and runs the game in one call); a step-by-step scientist swaps its own state in
        and out around each call, so two scientists in one process never disturb each other."""
        saved = _helperlib.rnd_get_state(_NP_STATE)
        _helperlib.rnd_set_state(_NP_STATE, self._stream)
        try:
            yield
        finally:
            self._stream = _helperlib.rnd_get_state(_NP_STATE)
            _helperlib.rnd_set_state(_NP_STATE, saved)

    def guess(self) -> int:
        told = (self.p_true, self.policy)  # what the oracle and the optimal policy know
        with self._own_stream():
            self._last = int(
                choose(self.kind, self.param, self.harma, *told, *self._belief(), self.scratch)  # type: ignore[call-arg]
            )
        return self._last

    def _belief(self) -> tuple[np.ndarray, ...]:
        """The arrays the kernels read and update, in their argument order."""
        return self.hyps, self.post, self.weights, self.ab, self.groups, self.scal

    def learn(self, code: int) -> None:
        if self._last is None:
            raise RuntimeError("learn() before guess()")
        self.harma += int(harma_change(code))
        with self._own_stream():
            observe(self.kind, self.param, self._last, code, *self._belief())


@njit(cache=True)
def _seed(seed):
    np.random.seed(seed)


_helperlib: Any = _numba_helperlib  # numba's C helpers (no type information)
# numba's generator state for np.random inside kernels (the calling thread's), read and written
# through numba's own helpers.
_NP_STATE = _helperlib.rnd_get_np_state_ptr()


def _numba_stream(seed: int) -> tuple:
    """The state numba's generator has after ``np.random.seed(seed)`` in a kernel, without
    changing the process's current one."""
    saved = _helperlib.rnd_get_state(_NP_STATE)
    _seed(seed)
    state = _helperlib.rnd_get_state(_NP_STATE)
    _helperlib.rnd_set_state(_NP_STATE, saved)
    return state
