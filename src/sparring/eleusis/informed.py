"""The informed reference: a Bayesian that knows the deck's family, not the deck.

It is told the family and its parameters (``spike:alpha=0.5``) but not which card, suit or
number the generator picked. Its prior is uniform over every deck the generator can produce
(the hypotheses, found by running the generator on every sequence of its integer draws); it
updates the exact posterior from each feedback and guesses argmax d of the posterior mean (d is
linear in p, so that is the guess with the largest expected harma consumption).

No scientist can do better on average over a family than the Bayes-optimal policy under that
family's own prior; this greedy Bayesian is the best stand-in for it we found (a look-ahead on
the value of information did worse), so its mean guesses show how far from the oracle a
learner stays at a given starting harma: on spike 0.5 at H0 = 100 it needs
~1.3x the oracle, because finding the spike's number takes guesses that the oracle never wastes
(benchmarks/RESULTS.md has the numbers and the argument).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sparring.eleusis.cards import N_CARDS
from sparring.eleusis.decks import FAMILIES, parse_deck
from sparring.eleusis.theory import d_values

MAX_HYPOTHESES = 10_000


class _ScriptedRng:
    """Stands in for the generator's ``rng``: ``integers(n)`` answers from a script and records
    the range asked; any other draw means the family has no finite set of decks."""

    def __init__(self, script: list[int]) -> None:
        self.script = script
        self.ranges: list[int] = []

    def integers(self, n: int) -> int:
        position = len(self.ranges)
        self.ranges.append(int(n))
        return self.script[position] if position < len(self.script) else 0

    def __getattr__(self, name: str):
        raise _NotFinite(f"draws with rng.{name}")


class _NotFinite(Exception):
    pass


def hypotheses(spec: str) -> np.ndarray:
    """Every distinct deck of family ``spec`` (H, 52), each once; the generator draws each of
    its integers uniformly, so the prior over the rows is uniform.

    Raises ValueError for families with continuous or too many decks (dirichlet, zipf, ...)."""
    try:
        return _enumerate(spec)
    except _NotFinite as exc:
        raise ValueError(
            f"the informed reference needs a deck family with finitely many decks; {spec!r} "
            f"{exc} (finite families: {', '.join(finite_families())})"
        ) from None


def finite_families() -> list[str]:
    """The families whose decks the informed reference can enumerate."""
    names = []
    for family in FAMILIES:
        try:
            _enumerate(family)
        except _NotFinite:
            continue
        names.append(family)
    return names


def _enumerate(spec: str) -> np.ndarray:
    """Run the family's generator on every sequence of its integer draws (depth first)."""
    family, params = parse_deck(spec)
    generate = FAMILIES[family]
    decks: dict[bytes, np.ndarray] = {}
    chance: dict[bytes, float] = {}  # the generator's probability of dealing each deck
    pending: list[list[int]] = [[]]
    while pending:
        script = pending.pop()
        rng = _ScriptedRng(script)
        p = np.asarray(generate(rng, **params), dtype=np.float64)
        if len(rng.ranges) > len(script):  # a draw the script did not fix yet: branch on it
            pending.extend([*script, k] for k in range(rng.ranges[len(script)]))
            continue
        p = p / p.sum()
        key = np.round(p, 15).tobytes()
        decks.setdefault(key, p)
        chance[key] = chance.get(key, 0.0) + 1.0 / np.prod(rng.ranges, dtype=np.float64)
        if len(decks) > MAX_HYPOTHESES:
            raise _NotFinite(f"has more than {MAX_HYPOTHESES} decks")
    if not np.allclose(list(chance.values()), next(iter(chance.values()))):
        raise _NotFinite("deals its decks with unequal chances (the prior would not be uniform)")
    return np.array(list(decks.values()))


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
