"""The league's pairs: its agent entrants, the cache of each pair's per-deal results, and the
Ray task that plays a pair.

A pair's file is ``<cache_dir>/<deal set>-<digest a>-<digest b>.npy`` (entrants are keyed by
what they play, not their name; the pair is stored in digest order and flipped on reading),
written atomically with its digest beside it; a missing, damaged or misshapen file is played
again. The task and everything it receives live here, apart from the league's registry side
(``champions.league``), so a worker that plays a pair imports no MLflow.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass

import numpy as np

from sparring.arena import agents_on_deals as deal_play
from sparring.arena.agents import make, parse
from sparring.ga.round_robin import Entrant
from sparring.ga.round_robin import play_pair as play_pair_kernel
from sparring.poker.deal_generation import DealSet
from sparring.runtime.programs.program import Limits
from sparring.runtime.storage.datasets import read_verified, write_with_digest
from sparring.runtime.storage.location import Location

__all__ = ["AgentEntrant", "AnyEntrant", "pair_path", "play_pair_task", "read_pair", "write_pair"]


@dataclass(frozen=True)
class AgentEntrant:
    """An entrant named by an agent spec that is no chromosome (``py:``, ``cmd:``, ``acpc:``,
    ``random``, ``first``): it plays through the game protocol, its table more of itself."""

    name: str

    @property
    def digest(self) -> str:
        """What it plays, hashed: the whole spec (arguments, class, kind) and its program's or
        module's file (an edited bot plays again): the cache key of its pairs."""
        code = parse(self.name).digest()
        return "agent" + hashlib.sha256(f"{self.name}\0{code}".encode()).hexdigest()[:11]


AnyEntrant = Entrant | AgentEntrant


def pair_path(
    cache_dir: Location, deals: str, a: AnyEntrant, b: AnyEntrant
) -> tuple[Location, bool]:
    """The cache file of a pair (in the cache's Location: a local directory or a store's) and
    whether (a, b) is stored flipped."""
    da, db = a.digest, b.digest
    flipped = da > db
    lo, hi = (db, da) if flipped else (da, db)
    return cache_dir / f"{deals}-{lo}-{hi}.npy", flipped


def read_pair(path: Location, flipped: bool, deals: int) -> np.ndarray | None:
    """A cached pair, or None to play it again: missing, without its digest, damaged (a bit
    flipped: the digest no longer matches) or of another shape."""
    data = read_verified(path)
    if data is None:
        return None
    try:
        pair = np.load(io.BytesIO(data), allow_pickle=False)
    except (OSError, ValueError):
        return None
    if pair.shape != (deals, 2) or not np.isfinite(pair).all():
        return None
    return pair[:, ::-1] if flipped else pair


def write_pair(path: Location, flipped: bool, pair: np.ndarray) -> None:
    buffer = io.BytesIO()
    np.save(buffer, pair[:, ::-1] if flipped else pair)
    write_with_digest(path, buffer.getvalue())  # atomic (its directory made), its digest beside


def _side(entrant: AnyEntrant, seats: int, factors: tuple[float, float], limits: Limits):
    if isinstance(entrant, Entrant):
        return deal_play.chromosome_side(entrant.name, entrant.lone, entrant.table, *factors)
    spec = parse(entrant.name, "league.agents")
    return deal_play.agent_side(entrant.name, lambda: make(spec, limits), seats)


def play_pair_task(
    pair: tuple[AnyEntrant, AnyEntrant],
    deals: DealSet,
    raise_factor: float,
    call_factor: float,
    limits: Limits,
    withdraw_after: int = 3,
    secret: bytes | None = None,
) -> tuple[np.ndarray, dict[str, tuple[int, str]]]:
    """One Ray task: both seatings of one pair (``play_pair``'s columns), and the hands each
    side forfeited with the first reason (only an agent entrant can fault). ``secret``: the
    league's, keying the agents' start seeds (the same for every pair: an agent plays a deal
    alike whoever it meets; never the deal's id, which would tell the cards)."""
    a, b = pair
    if isinstance(a, Entrant) and isinstance(b, Entrant):
        equity, strength = deals.equity, deals.strength
        return play_pair_kernel(a, b, equity, strength, raise_factor, call_factor), {}
    seats, factors = deals.n_seats, (raise_factor, call_factor)
    out, faults = deal_play.play_pair(
        _side(a, seats, factors, limits),
        _side(b, seats, factors, limits),
        deals.deal_id,
        deals.holes,
        deals.board,
        deals.equity,
        withdraw_after,
        secret,
    )
    return out, {side: (n, faults.first[side]) for side, n in faults.count.items()}
