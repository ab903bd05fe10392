"""The informed reference: a Bayesian that knows the deck's family, not the deck.

It is told the family and its parameters (``spike:alpha=0.5``) but not which card, suit or
number the generator picked. Its prior is uniform over every deck the generator can produce
(the rows of ``hypotheses.hypotheses``); it updates the exact posterior from each feedback
(``informed_observe``) and guesses argmax d of the posterior mean (``informed_choose``; d is
linear in p, so that is the guess with the largest expected harma consumption).

No scientist can do better on average over a family than the Bayes-optimal policy under that
family's own prior; this greedy Bayesian is the best stand-in for it we found (a look-ahead on
the value of information did worse), so its mean guesses show how far from the oracle a
learner stays at a given starting harma: on spike 0.5 at H0 = 100 it needs
~1.3x the oracle, because finding the spike's number takes guesses that the oracle never wastes
(benchmarks/LOG.md has the numbers and the argument).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sparring.eleusis.cards import N_CARDS
from sparring.eleusis.theory import d_values


@njit(cache=True)
def informed_choose(hyps, post, mean, scratch) -> int:
    """argmax d of the posterior mean deck, ties broken at random."""
    mean[:] = 0.0
    for h in range(hyps.shape[0]):
        if post[h] > 0.0:
            for c in range(N_CARDS):
                mean[c] += post[h] * hyps[h, c]
    d_values(mean, scratch)
    top = scratch.max()
    best = 0
    ties = 0
    for c in range(N_CARDS):
        if scratch[c] >= top - 1e-12:
            ties += 1
            if np.random.random() * ties < 1.0:
                best = c
    return best


@njit(cache=True)
def informed_observe(hyps, post, guess, code):
    """Bayes' rule: multiply each hypothesis by P(feedback ``code`` on ``guess`` | deck)."""
    s = guess // 13
    n = guess % 13
    total = 0.0
    for h in range(hyps.shape[0]):
        if post[h] == 0.0:
            continue
        p_suit = 0.0
        for k in range(13):
            p_suit += hyps[h, 13 * s + k]
        p_number = 0.0
        for k in range(4):
            p_number += hyps[h, 13 * k + n]
        p_card = hyps[h, guess]
        if code == 3:
            likelihood = p_card
        elif code == 1:
            likelihood = p_suit - p_card
        elif code == 2:
            likelihood = p_number - p_card
        else:
            likelihood = 1.0 - p_suit - p_number + p_card
        post[h] *= max(likelihood, 0.0)
        total += post[h]
    if total > 0.0:
        post /= total
    else:  # the feedback contradicts every hypothesis: the family was wrong, start over
        post[:] = 1.0 / hyps.shape[0]
