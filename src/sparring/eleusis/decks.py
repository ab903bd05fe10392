"""Deck families: seeded generators of hidden distributions p over the 52 cards.

A deck is written ``family`` or ``family:key=value,key=value`` (e.g. ``spike:alpha=0.5``,
``suit_rank:suit=0.7,rank=0.5``, ``zipf:s=2``); with a seed it always gives the same p.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from sparring.eleusis.cards import N_CARDS, card_index


def _normalise(p: np.ndarray) -> np.ndarray:
    return p / p.sum()


def point_mass(rng):
    p = np.zeros(N_CARDS)
    p[rng.integers(N_CARDS)] = 1.0
    return p


def k_uniform(rng, k: int = 4):
    p = np.zeros(N_CARDS)
    p[rng.choice(N_CARDS, int(k), replace=False)] = 1.0
    return _normalise(p)


def spike(rng, alpha: float = 0.5):
    """One card with probability alpha, the rest uniform."""
    p = np.full(N_CARDS, (1 - alpha) / (N_CARDS - 1))
    p[rng.integers(N_CARDS)] = alpha
    return p


def _biased(size: int, strength: float, rng) -> np.ndarray:
    w = np.full(size, (1 - strength) / (size - 1))
    w[rng.integers(size)] = strength
    return w


def suit_biased(rng, strength: float = 0.7):
    """One suit carries ``strength`` of the mass; numbers uniform."""
    return np.outer(_biased(4, strength, rng), np.full(13, 1 / 13)).ravel()


def rank_biased(rng, strength: float = 0.5):
    """One number carries ``strength`` of the mass; suits uniform."""
    return np.outer(np.full(4, 0.25), _biased(13, strength, rng)).ravel()


def suit_rank(rng, suit: float = 0.7, rank: float = 0.5):
    """A product of a biased suit and a biased number distribution."""
    return np.outer(_biased(4, suit, rng), _biased(13, rank, rng)).ravel()


def dirichlet(rng, alpha: float = 0.1):
    return rng.dirichlet(np.full(N_CARDS, alpha))


def dirichlet_product(rng, a: float = 0.3):
    return np.outer(rng.dirichlet(np.full(4, a)), rng.dirichlet(np.full(13, a))).ravel()


def zipf(rng, s: float = 1.5):
    """Zipf weights 1/r^s over a random order of the cards."""
    order = rng.permutation(N_CARDS)
    p = np.empty(N_CARDS)
    p[order] = 1.0 / np.arange(1, N_CARDS + 1) ** s
    return _normalise(p)


def best_ne_mode(rng):
    """The adversarial deck: p(C1) = 0.4 is the mode but D6 and D7 (0.3 each) are the best
    guesses (d = 0.1 against 0.0)."""
    p = np.zeros(N_CARDS)
    p[card_index("C", 1)] = 0.4
    p[card_index("D", 6)] = 0.3
    p[card_index("D", 7)] = 0.3
    return p


def uniform(rng):
    return np.full(N_CARDS, 1 / N_CARDS)


FAMILIES: dict[str, Callable[..., np.ndarray]] = {
    "point_mass": point_mass,
    "k_uniform": k_uniform,
    "spike": spike,
    "suit_biased": suit_biased,
    "rank_biased": rank_biased,
    "suit_rank": suit_rank,
    "dirichlet": dirichlet,
    "dirichlet_product": dirichlet_product,
    "zipf": zipf,
    "best_ne_mode": best_ne_mode,
    "uniform": uniform,
}


def parse_deck(spec: str) -> tuple[str, dict[str, float]]:
    """``"spike:alpha=0.5"`` -> ("spike", {"alpha": 0.5}); ValueError naming what is wrong."""
    family, _, rest = spec.partition(":")
    if family not in FAMILIES:
        raise ValueError(
            f"deck {spec!r}: unknown family {family!r}; families are {', '.join(FAMILIES)}"
        )
    params: dict[str, float] = {}
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"deck {spec!r}: {item!r} is not key=value")
        try:
            params[key.strip()] = float(value)
        except ValueError as exc:
            raise ValueError(f"deck {spec!r}: {key}={value!r} is not a number") from exc
    import inspect

    allowed = list(inspect.signature(FAMILIES[family]).parameters)[1:]
    unknown = set(params) - set(allowed)
    if unknown:
        raise ValueError(
            f"deck {spec!r}: {family} takes {', '.join(allowed) or 'no parameters'}"
            f", not {sorted(unknown)[0]!r}"
        )
    return family, params


def make_deck(spec: str, seed: int = 0) -> np.ndarray:
    """The distribution p (52,) of deck ``spec`` under ``seed``."""
    # seeding also defines numba kernels: imported here so that the config checks, which only
    # parse decks, import no numba
    from sparring.seeding import task_rng

    family, params = parse_deck(spec)
    p = FAMILIES[family](task_rng(seed, "deck", spec), **params)
    if not (np.all(p >= 0) and np.isfinite(p).all() and p.sum() > 0):
        raise ValueError(f"deck {spec!r}: parameters give no valid distribution")
    return _normalise(np.asarray(p, dtype=np.float64))
