"""The decks a family can deal: the informed reference's hypotheses, found by running the
family's generator on every sequence of its integer draws.

Plain numpy, no kernels: the config checks a family with ``hypotheses`` without importing numba.
Only families whose generators draw nothing but ``rng.integers`` and deal each deck with the same
chance qualify (their prior over the decks is then uniform); ``finite_families`` lists them.
"""

from __future__ import annotations

import numpy as np

from sparring.eleusis.decks import FAMILIES, parse_deck

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
