"""A league of hold'em players: every pair meets in both seatings; chips and deal-win ratings.

An *entrant* is a lone player and the N-1 opponents it fields when it is the table: a champion
fields N-1 copies of itself, a baseline table its own mix (``baseline_table``). A *pairing* of A
and B plays every rotation of every held-out deal twice (``play_deals``):

- A alone against B's table (A in seat 0, B's N-1 players around it), and
- B alone against A's table.

Per deal, A's *edge* over B is half the difference of the two lone players' bb/100; it is
antisymmetric, and its mean over the deals, with a 95% normal interval, is the pairwise result.
Two measures of an entrant, which can disagree:

- *chips* (``chip_scores``): its mean edge over the other entrants, bb/100, with a 95% normal
  interval over the deals: how many chips it wins from the average opponent. The league ranks
  by this; ``pair_record`` counts the opponents it beats and loses to in chips.
- *deal wins* (``rate``): a Bradley–Terry model of the deals each entrant won against each other
  (ties count half), fitted by Hunter's MM iterations with half a win and half a loss against
  every opponent as a prior (a player that never wins still gets a finite rating), on the Elo
  scale (400 log10 of the strength, mean 0). It scores a deal by the sign of the edge alone, so
  it rates how *often* an entrant wins a deal, not by how much. In a 10-seat league of the
  baselines the maniac (winning over a third of its deals against the random and mixed tables,
  losing the rest by whole pots) rated above the calling station, which wins fewer deals but
  loses less on the others: in chips it beats the maniac and loses less to every other (#47
  item 12: a bot last in chips rated 5th of 11). Intervals are the 2.5–97.5% quantiles of the
  ratings refitted on bootstrap resamples of the deals (the same resamples for every pair).

Neither depends on the order of the entrants.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from sparring.ga.fitness import bb_per_100
from sparring.poker.engine import play_deals

ELO = 400.0 / np.log(10.0)


@dataclass(frozen=True)
class Entrant:
    """A player as the league sees it: ``lone`` (540, 2) and the ``table`` it fields (N-1, ...)."""

    name: str
    lone: np.ndarray
    table: np.ndarray

    @property
    def digest(self) -> str:
        """What the entrant plays, hashed: the cache key of its pairings (names may change)."""
        h = hashlib.sha256()
        for part in (self.lone, self.table):
            a = np.ascontiguousarray(part, dtype=np.int8)
            h.update(str(a.shape).encode())
            h.update(a.tobytes())
        return h.hexdigest()[:16]


def champion_entrant(name: str, chromosome: np.ndarray, seats: int) -> Entrant:
    """A chromosome alone, and N-1 copies of it as its table."""
    genes = np.asarray(chromosome, dtype=np.int8)
    return Entrant(name, genes, np.repeat(genes[None], seats - 1, axis=0))


def play_pair(
    a: Entrant,
    b: Entrant,
    equity: np.ndarray,
    strength: np.ndarray,
    raise_factor: float,
    call_factor: float,
) -> np.ndarray:
    """(D, 2) bb/100 per deal: column 0 A alone against B's table, column 1 B alone against
    A's table."""
    n = strength.shape[1]
    out = np.empty((len(strength), 2))
    for col, (lone, table) in enumerate(((a.lone, b.table), (b.lone, a.table))):
        seats = np.concatenate([lone[None], table[: n - 1]])
        result = play_deals(equity, strength, seats, raise_factor, call_factor)
        out[:, col] = bb_per_100(result.net_per_deal[:, 0], n * n)
    return out


def deal_edges(pair: np.ndarray) -> np.ndarray:
    """A's edge over B per deal (bb/100) from ``play_pair``'s columns."""
    return (pair[:, 0] - pair[:, 1]) / 2.0


def edge_interval(edges: np.ndarray) -> tuple[float, float, float]:
    """Mean edge and its 95% normal interval."""
    mean = float(edges.mean())
    half = 1.96 * float(edges.std(ddof=1)) / np.sqrt(len(edges)) if len(edges) > 1 else np.inf
    return mean, mean - half, mean + half


def field_edges(edges: dict[tuple[int, int], np.ndarray], n: int) -> np.ndarray:
    """(n, D): per deal, each entrant's edge over the field, its mean edge (bb/100) over the
    n - 1 others on that deal. ``edges`` must hold every pair (i, j), i < j (a round robin):
    an entrant's score over only some opponents would not be comparable with the others'."""
    missing = [(i, j) for i in range(n) for j in range(i + 1, n) if (i, j) not in edges]
    if n < 2 or missing:
        raise ValueError(f"a field of {n} needs every pair; missing {missing[:3]}")
    deals = len(next(iter(edges.values())))
    total = np.zeros((n, deals))
    for (i, j), e in edges.items():
        total[i] += e
        total[j] -= e  # antisymmetric: j's edge over i
    return total / (n - 1)


def chip_scores(edges: dict[tuple[int, int], np.ndarray], n: int) -> np.ndarray:
    """(n, 3): each entrant's mean edge over the other entrants (bb/100, the chips it wins
    from the average opponent) and its 95% normal interval over the deals. The deals are the
    same for every pair, so a deal's edges over the field are averaged before the spread is
    taken (``edge_interval`` of ``field_edges``' row)."""
    return np.array([edge_interval(row) for row in field_edges(edges, n)])


def pair_record(edges: dict[tuple[int, int], np.ndarray], n: int) -> np.ndarray:
    """(n, 3) ints: for each entrant the opponents it beat, drew with and lost to in chips
    (the sign of the pair's mean edge)."""
    record = np.zeros((n, 3), dtype=int)  # won, drawn, lost
    for (i, j), e in edges.items():
        m = float(e.mean())
        a, b = (0, 2) if m > 0 else (2, 0) if m < 0 else (1, 1)
        record[i, a] += 1
        record[j, b] += 1
    return record


def win_matrix(edges: dict[tuple[int, int], np.ndarray], n: int, rows: np.ndarray) -> np.ndarray:
    """wins[i, j]: deals (of ``rows``) that i won against j; a tie counts half to each."""
    wins = np.zeros((n, n))
    for (i, j), e in edges.items():
        x = e[rows]
        w = float((x > 0).sum() + 0.5 * (x == 0).sum())
        wins[i, j] += w
        wins[j, i] += len(x) - w
    return wins


def bradley_terry(wins: np.ndarray, iterations: int = 500, tol: float = 1e-10) -> np.ndarray:
    """Elo-scale ratings (mean 0) of a Bradley–Terry fit to ``wins`` (MM, with a prior of half
    a win and half a loss against every opponent)."""
    n = len(wins)
    w = wins + 0.5 * (1 - np.eye(n))
    games = w + w.T
    p = np.ones(n)
    for _ in range(iterations):
        denom = (games / (p[:, None] + p[None, :])).sum(axis=1)
        new = w.sum(axis=1) / denom
        new /= np.exp(np.log(new).mean())
        if np.max(np.abs(new - p)) < tol:
            p = new
            break
        p = new
    r = ELO * np.log(p)
    return r - r.mean()


@dataclass(frozen=True)
class Ratings:
    names: list[str]
    rating: np.ndarray  # Elo scale, mean 0
    low: np.ndarray  # 95% bootstrap interval
    high: np.ndarray


def rate(
    names: list[str],
    edges: dict[tuple[int, int], np.ndarray],
    bootstrap: int = 200,
    seed: int = 0,
) -> Ratings:
    """Deal-win ratings (Bradley–Terry, Elo scale) with bootstrap intervals from per-deal
    edges of pairs (i, j), i < j: how often each wins a deal, whatever the margin (for the
    chips, ``chip_scores``)."""
    n = len(names)
    deals = len(next(iter(edges.values())))
    everything = np.arange(deals)
    rating = bradley_terry(win_matrix(edges, n, everything))
    rng = np.random.default_rng(seed)
    samples = np.empty((bootstrap, n))
    for k in range(bootstrap):
        rows = rng.integers(0, deals, deals)
        samples[k] = bradley_terry(win_matrix(edges, n, rows))
    low, high = np.quantile(samples, [0.025, 0.975], axis=0) if bootstrap else (rating, rating)
    return Ratings(list(names), rating, np.asarray(low), np.asarray(high))


__all__ = [
    "Entrant",
    "Ratings",
    "bradley_terry",
    "champion_entrant",
    "chip_scores",
    "deal_edges",
    "edge_interval",
    "field_edges",
    "pair_record",
    "play_pair",
    "rate",
    "win_matrix",
]
