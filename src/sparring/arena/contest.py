"""Fair units of play between two agents, played in blocks, scored, and rated.

A unit is what makes a comparison fair in its game, always from one seed:

- two-player games (FlagBots, heads-up poker): two games from the same start (FlagBots: the
  same random opening plies), sides swapped;
- Mus: two matches on the same deals, teams swapped (A holds seats 0 and 2, then 1 and 3);
- a one-player game (Eleusis): A and B each play the same deck and card stream;
- any other n-player game: A in each seat once, B in the others (a duplicate rotation).

A's unit score is the mean over the unit's games of 1 (A did better than B), 1/2 or 0; in a
one-player unit A's return is compared with B's; in a game whose returns are amounts
(``scored_by_total``: poker's chips) A's total over the unit's games with B's, so a pair of
hands with the cards swapped scores who played them better. In the last two a side that
forfeited any game of the unit loses it (both: a draw). Unit ``i`` has the same seed for every
pair of a contest, so every entrant meets the same positions and deals, and a block's result
depends on nothing but its units: the same seed gives the same results for any number of workers.
Chance is keyed (``unit_seed``): the same seed under the same store key gives the same units.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from sparring import game_api
from sparring.arena.agents import make, parse
from sparring.arena.play import GameRecord, forfeit_returns, play_game
from sparring.runtime.programs.program import Limits
from sparring.runtime.storage import keys
from sparring.seeding import task_seed


def seatings(game: Any) -> list[tuple[str, ...]]:
    """The games of one unit: which role (``A``/``B``) sits in each seat."""
    n = game.num_players
    teams = game_api.trait(game, "teams")
    if n == 1:
        return [("A",), ("B",)]
    if teams:
        first = tuple("A" if s in teams[0] else "B" for s in range(n))
        return [first, tuple("B" if r == "A" else "A" for r in first)]
    if n == 2:
        return [("A", "B"), ("B", "A")]
    return [tuple("A" if s == k else "B" for s in range(n)) for k in range(n)]


def _by_total(game: Any) -> bool:
    """Whether a unit is scored on its totals: a game whose returns are amounts (poker's
    chips), where a duplicate pair cancels the luck of the cards only when summed."""
    return bool(game_api.trait(game, "scored_by_total"))


def unit_seed(secret: bytes, unit: int) -> int:
    """The chance seed of unit ``unit`` of a contest (its deals, its deck, its opening): the
    same for every pair, derived from the contest's ``secret`` (``contest_secret``), so no
    entrant can compute it from what it is told or from the contest's seed."""
    return keys.derive_seed(secret, "arena-unit", unit)


def contest_secret(key: bytes, seed: int) -> bytes:
    """The secret of a contest of ``seed`` under the store's ``key`` (``runtime.storage.keys``): the
    same key and seed give the same units, whoever plays them and on how many workers."""
    return keys.derive(key, "arena-contest", task_seed(seed, "arena"))


def opening(game: Any, seed: int, plies: int) -> list[Any]:
    """``plies`` random legal actions from ``new_state(seed)``: a unit's shared start."""
    state, rng, played = game.new_state(seed), random.Random(seed), []
    for _ in range(plies):
        if state.is_terminal():
            break
        action = rng.choice(list(state.legal_actions()))
        state.apply_action(action)
        played.append(action)
    return played


def _side(returns: Sequence[float], seating: Sequence[str], role: str) -> float:
    return float(np.mean([r for r, who in zip(returns, seating, strict=True) if who == role]))


def unit_score(games: Sequence[dict[str, Any]], one_player: bool, by_total: bool = False) -> float:
    """A's score in a unit (see the module docstring); ``by_total``: on the unit's totals."""
    if one_player or by_total:  # a side that forfeited (a fault, or withdrawn) loses; both: even
        faulty = {g["seating"][g["forfeit_seat"]] for g in games if g["forfeit_seat"] is not None}
        if faulty:
            return 0.5 if faulty == {"A", "B"} else 0.0 if "A" in faulty else 1.0
    if one_player:
        a, b = (g["returns"][0] for g in games)
        return 1.0 if a > b else 0.5 if a == b else 0.0
    if by_total:
        a = sum(_side(g["returns"], g["seating"], "A") for g in games)
        b = sum(_side(g["returns"], g["seating"], "B") for g in games)
        return 1.0 if a > b else 0.5 if a == b else 0.0
    scores = []
    for g in games:
        a, b = _side(g["returns"], g["seating"], "A"), _side(g["returns"], g["seating"], "B")
        scores.append(1.0 if a > b else 0.5 if a == b else 0.0)
    return float(np.mean(scores))


@dataclass(frozen=True)
class Block:
    """Units ``start`` .. ``stop - 1`` between agents ``a`` and ``b`` (specs), at a table of
    ``seats`` (0: the game's own number of players)."""

    game: str
    a: str
    b: str
    start: int
    stop: int
    seats: int = 0
    variant: str = ""  # the game's settings (Eleusis: "deck=zipf;harma=100;cap=2000"), "" none

    @property
    def key(self) -> str:
        table = f"|{self.seats} seats" if self.seats else ""
        variant = f"|{self.variant}" if self.variant else ""
        return f"{self.a}|{self.b}|{self.start}-{self.stop}{table}{variant}"


def table(game: str, seats: int = 0, variant: str = "") -> Any:
    """The game ``game`` played at ``seats`` seats (0: as registered), with the settings of
    ``variant`` ("" as registered; Eleusis: ``deck=...;harma=...;cap=...``): the game's own
    ``with_variant`` and ``at_table`` make it (a game that has several ``table_sizes``, poker:
    at n seats a unit is n hands of one deal, A in each seat once, B in the others, a
    duplicate rotation)."""
    registered = game_api.get(game)
    if variant:
        with_variant = getattr(registered, "with_variant", None)
        if not callable(with_variant):
            raise ValueError(f"{game} has no settings ({variant})")
        return with_variant(variant)
    if not seats or seats == registered.num_players:
        return registered
    at_table = getattr(registered, "at_table", None)
    if not game_api.trait(registered, "table_sizes") or not callable(at_table):
        raise ValueError(f"{game} is played by {registered.num_players}, not {seats}")
    return at_table(seats)


def play_block(
    block: Block,
    *,
    secret: bytes,
    limits: Limits,
    opening_plies: int,
    withdraw_after: int,
    resolved: dict[str, dict] | None = None,
) -> dict[str, Any]:
    """Play a block (a Ray task: the agents' programs start on the task's node, and all of
    them end with it). An agent whose games fault ``withdraw_after`` times in a row within the
    block is withdrawn: its remaining games of the block are forfeited without being played
    (so where a flaky agent is withdrawn depends on ``block``; with no withdrawal the games do
    not). ``resolved``: what the driver read for a spec that needs it (a champion's chromosome,
    by spec). ``secret``: the contest's (``contest_secret``), from which every unit's chance and
    every seat's start-message seed are derived."""
    game = table(block.game, block.seats, block.variant)
    layout = seatings(game)
    roles = {"A": block.a, "B": block.b}
    seats_of = {r: max(sum(1 for who in seating if who == r) for seating in layout) for r in roles}
    given = resolved or {}
    agents = {
        r: [make(parse(roles[r]), limits, resolved=given.get(roles[r])) for _ in range(seats_of[r])]
        for r in roles
    }
    faults_in_a_row = {"A": 0, "B": 0}
    withdrawn: dict[str, str] = {}
    units = []
    try:
        for unit in range(block.start, block.stop):
            seed_u = unit_seed(secret, unit)
            start = opening(game, seed_u, opening_plies)
            games = []
            for seating in layout:
                record = _play_or_forfeit(
                    game, seating, agents, roles, seed_u, start, withdrawn, secret
                )
                games.append({**_game_row(record), "seating": list(seating)})
                faulty = None if record.forfeit_seat is None else seating[record.forfeit_seat]
                for r in set(seating):  # a role not seated in this game keeps its streak
                    faults_in_a_row[r] = faults_in_a_row[r] + 1 if faulty == r else 0
                    if faults_in_a_row[r] >= withdraw_after and r not in withdrawn:
                        withdrawn[r] = (
                            f"{roles[r]} withdrawn after {withdraw_after} faults in a row "
                            f"(last: {record.forfeit_kind}: {record.forfeit_detail})"
                        )
            score = unit_score(games, game.num_players == 1, _by_total(game))
            units.append(
                {"unit": unit, "seed": seed_u, "opening": start, "games": games, "score": score}
            )
    finally:
        for group in agents.values():
            for agent in group:
                close = getattr(agent, "close", None)
                if callable(close):
                    close()
    return {"block": asdict(block), "units": units, "withdrawn": withdrawn}


def _play_or_forfeit(game, seating, agents, roles, seed, start, withdrawn, secret) -> GameRecord:
    names = [roles[who] for who in seating]
    gone = [s for s, who in enumerate(seating) if who in withdrawn]
    if gone:  # not played: the withdrawn side forfeits
        seat = gone[0]
        returns = forfeit_returns(game.num_players, seat, game_api.trait(game, "teams"))
        return GameRecord(
            game.name,
            seed,
            names,
            returns,
            forfeit_seat=seat,
            forfeit_kind="withdrawn",
            forfeit_detail=withdrawn[seating[seat]],
        )
    taken = {r: iter(agents[r]) for r in agents}
    seated = [next(taken[who]) for who in seating]
    before = [len(getattr(a, "invalid", ())) for a in seated]  # an ACPC seat lists its own
    record = play_game(game, seated, seed, names=names, opening=start, secret=secret)
    record.invalid = [len(getattr(a, "invalid", ())) - before[s] for s, a in enumerate(seated)]
    return record


def _game_row(record: GameRecord) -> dict[str, Any]:
    return {
        "returns": [float(r) for r in record.returns],
        "decisions": record.decisions,
        "actions": [a if isinstance(a, str) else int(a) for a in record.actions],
        "forfeit_seat": record.forfeit_seat,
        "forfeit_kind": record.forfeit_kind,
        "forfeit_detail": record.forfeit_detail,
        "capped": record.capped,
        "invalid": record.invalid or [0] * len(record.returns),  # (a withdrawn side's: none)
        "seconds": record.seconds,
    }


def blocks_for(
    game: str, a: str, b: str, units: int, block: int, seats: int = 0, variant: str = ""
) -> list[Block]:
    """``units`` units of ``a`` against ``b`` cut into blocks of ``block`` units."""
    return [
        Block(game, a, b, s, min(s + block, units), seats, variant) for s in range(0, units, block)
    ]


def pair_scores(results: Sequence[dict[str, Any]], a: str, b: str) -> np.ndarray:
    """A's unit scores against B in unit order, from every block of that pair."""
    units = sorted(
        (u for r in results if (r["block"]["a"], r["block"]["b"]) == (a, b) for u in r["units"]),
        key=lambda u: u["unit"],
    )
    return np.array([u["score"] for u in units], np.float64)


def score_interval(scores: np.ndarray, z: float = 1.96) -> tuple[float, float, float]:
    """A's mean unit score and its 95% Wilson interval over the units (each scored in [0, 1]).
    Unlike the normal interval it stays inside [0, 1] and never collapses to a point when every
    unit scored the same (10 wins of 10: [0.72, 1], not [1, 1])."""
    n = scores.size
    if n == 0:
        return float("nan"), 0.0, 1.0
    p = float(scores.mean())
    spread = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / spread
    half = z * float(np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / spread
    return p, max(0.0, centre - half), min(1.0, centre + half)


def pair_win_rate(results: Sequence[dict[str, Any]], a: str, b: str, unit: float) -> np.ndarray:
    """A's result per unit against B per 100 games, in ``unit``s of the returns (a game whose
    returns are amounts, ``win_rate_unit``: poker's bb/100, big blinds per 100 hands, a hand's
    result being A's mean return over the seats it holds), in unit order. A unit's games are
    the same cards dealt to both seatings, so its luck largely cancels."""
    units = sorted(
        (u for r in results if (r["block"]["a"], r["block"]["b"]) == (a, b) for u in r["units"]),
        key=lambda u: u["unit"],
    )
    per_unit = []
    for u in units:
        won = sum(_side(g["returns"], g["seating"], "A") for g in u["games"])
        per_unit.append(100.0 * won / (unit * max(1, len(u["games"]))))
    return np.array(per_unit, np.float64)


def mean_interval(values: np.ndarray, z: float = 1.96) -> tuple[float, float, float]:
    """The mean of ``values`` and its 95% normal interval (a point when there is one value)."""
    if values.size == 0:
        return float("nan"), float("nan"), float("nan")
    mean = float(values.mean())
    half = z * float(values.std(ddof=1)) / np.sqrt(values.size) if values.size > 1 else 0.0
    return mean, mean - half, mean + half


def elo(score: float) -> float:
    """The logistic Elo difference of a mean score (clipped away from 0 and 1)."""
    s = min(max(score, 1e-3), 1 - 1e-3)
    return float(-400.0 * np.log10(1.0 / s - 1.0))
