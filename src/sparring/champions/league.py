"""The league as a service: its entrants from the registry, every pair played once, ratings.

Entrants (``league.*``): every version of the registered model (``v3``), the baseline tables
(``calling_station`` ...; a baseline's table is the same ``baseline_table`` the champion
benchmark uses, its lone player that table's first kind), the champions of listed runs
(``run:<first 8 of the id>``) and any agent specs (``league.agents``, named by their spec:
``champion@<alias|version>`` and ``poker@<baseline>`` enter as chromosomes, a ``py:``,
``cmd:`` or ``acpc:`` agent as an ``AgentEntrant`` whose table is more of the same agent).
Every pair plays the held-out deals in both seatings, as Ray tasks: two chromosome entrants in
the numba engine (``ga.league``), a pair with an agent entrant through the game protocol on the
same deals (``arena.deal_play``: the ``n`` seat rotations of each deal, chromosomes reading the
deal set's equities; an agent's program starts in its pair's task and ends with it). Each
pair's per-deal results are cached in
``<cache_dir>/<deal set>-<digest a>-<digest b>.npy`` (entrants are keyed by what they play, not
their name), so adding an entrant plays only its new pairs. ``tag_versions`` writes each
registry version's rating on the version (``league_rating``, ``league_run``).

Used by the ``league`` pipeline (which logs the whole league) and by ``retrain`` (which rates
the champion after its decision).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient

from sparring.arena.agents import parse
from sparring.arena.sandbox import Limits
from sparring.champions.pairs import (
    AgentEntrant,
    AnyEntrant,
    pair_path,
    play_pair_task,
    read_pair,
    write_pair,
)
from sparring.champions.registry import load_champion, resolve_champion
from sparring.config.evolve import EvolveConfig, LeagueSection
from sparring.ga.league import Entrant, Ratings, champion_entrant, deal_edges, edge_interval, rate
from sparring.poker.bots import baseline, baseline_table
from sparring.poker.deals import DealSet
from sparring.reporting.console import console, print_table
from sparring.runtime import keys
from sparring.runtime.errors import UsageError
from sparring.runtime.parallel import parallel_map
from sparring.runtime.storage import locate

__all__ = [
    "RATING_TAG",
    "AgentEntrant",
    "LeagueResult",
    "baseline_entrant",
    "gather_entrants",
    "play_league",
    "rate_league",
    "tag_versions",
]

RATING_TAG = "league_rating"


@dataclass
class LeagueResult:
    entrants: list[str]
    ratings: Ratings
    edges: dict[tuple[int, int], tuple[float, float, float]]  # (i, j), i < j -> mean, low, high
    played: int  # pairs played in this run
    cached: int  # pairs read from the cache
    text: str

    def rating_of(self, name: str) -> tuple[float, float, float] | None:
        """An entrant's rating and its interval (None when it is not in the league)."""
        if name not in self.entrants:
            return None
        k = self.entrants.index(name)
        r = self.ratings
        return float(r.rating[k]), float(r.low[k]), float(r.high[k])


def baseline_entrant(name: str, seats: int, seed: int) -> Entrant:
    table = baseline_table(name, seats - 1, seed=seed)
    return Entrant(name, baseline_table(name, 1, seed=seed)[0], table)


def gather_entrants(
    client: MlflowClient,
    section: LeagueSection,
    model: str,
    seats: int,
    seed: int,
    uri: str | None = None,
) -> list[AnyEntrant]:
    """The league's entrants in a stable order: versions, baselines, runs, agents (``uri``:
    the registry a ``champion@`` agent is read from)."""
    out: list[AnyEntrant] = []
    if section.registry:
        try:
            versions = list(client.search_model_versions(f"name = '{model}'"))
        except MlflowException:
            versions = []
        for v in sorted(versions, key=lambda v: int(v.version)):
            chromosome, info = load_champion(client, str(v.source))
            if int(info.get("table_size", seats)) != seats:
                console.print(f"v{v.version} plays {info['table_size']} seats: not entered")
                continue
            out.append(champion_entrant(f"v{v.version}", chromosome, seats))
    out += [baseline_entrant(name, seats, seed) for name in section.baselines]
    for run_id in section.runs:
        try:
            chromosome, _ = load_champion(client, f"runs:/{run_id}/champion")
        except (MlflowException, OSError) as exc:
            raise UsageError(f"league.runs: run {run_id} has no champion/ artifact") from exc
        out.append(champion_entrant(f"run:{run_id[:8]}", chromosome, seats))
    out += [agent_entrant(text, model, seats, uri) for text in section.agents]
    if len(out) < 2:
        raise UsageError(f"a league needs two entrants or more; found {[e.name for e in out]}")
    return out


def agent_entrant(text: str, model: str, seats: int, uri: str | None) -> AnyEntrant:
    """A ``league.agents`` spec as an entrant: a champion or a baseline as the chromosome it
    plays (the numba engine's fast path), any other agent as an ``AgentEntrant``."""
    spec = parse(text, "league.agents")
    if spec.kind == "champion":
        if uri is None:
            raise UsageError(f"league.agents: {text} needs the model registry")
        found = resolve_champion(uri, model, spec, "league.agents")
        if found["table_size"] not in (None, seats):
            raise UsageError(
                f"league.agents: {text} (v{found['version']}) plays {found['table_size']} "
                f"seats; this league plays {seats} (table_size)"
            )
        return champion_entrant(text, np.asarray(found["genes"]), seats)
    if text.startswith("poker@"):
        return champion_entrant(text, baseline(text.removeprefix("poker@")), seats)
    return AgentEntrant(text)


def play_league(
    entrants: list[AnyEntrant],
    deals: DealSet,
    deal_hash: str,
    cache_dir: str | Path,
    raise_factor: float,
    call_factor: float,
    bootstrap: int,
    seed: int,
    limits: Limits | None = None,
    withdraw_after: int = 3,
) -> LeagueResult:
    """Every pair (cached or played as Ray tasks), their edges and the ratings; prints the
    league table (kept in the result's ``text``)."""
    names = [e.name for e in entrants]
    if len(set(names)) != len(names):
        raise UsageError(f"entrant names repeat: {names}")
    cache = Path(cache_dir)
    pairs = [(i, j) for i in range(len(entrants)) for j in range(i + 1, len(entrants))]
    results: dict[tuple[int, int], np.ndarray] = {}
    todo = []
    files = {(i, j): pair_path(cache, deal_hash, entrants[i], entrants[j]) for i, j in pairs}
    for i, j in pairs:
        path, flipped = files[(i, j)]
        found = read_pair(path, flipped, len(deals))
        if found is None:
            todo.append((i, j))
        else:
            results[(i, j)] = found
    played = (
        parallel_map(
            play_pair_task,
            [(entrants[i], entrants[j]) for i, j in todo],
            shared={
                "deals": deals,
                "raise_factor": raise_factor,
                "call_factor": call_factor,
                "limits": limits or Limits(),
                "withdraw_after": withdraw_after,
                # the agents' start seeds, keyed by the store beside the pair cache (one
                # secret a deal set: the same seeds in every pair, none telling a card)
                "secret": keys.derive(keys.store_key(locate(str(cache))), "league", deal_hash),
            },
            description=f"league: {len(todo)} new pairs of {len(pairs)}",
        )
        if todo
        else []
    )
    for (i, j), (pair, faults) in zip(todo, played, strict=True):
        for side, (count, first) in sorted(faults.items()):
            other = names[j] if side == names[i] else names[i]
            console.print(
                f"league: {side} forfeited {count} hands against {other} (first: {first})",
                soft_wrap=True,
            )
        if not faults:  # a pair with forfeits is played again next time, and said again
            path, flipped = files[(i, j)]
            write_pair(path, flipped, pair)
        results[(i, j)] = pair
    edges = {k: deal_edges(v) for k, v in results.items()}
    ratings = rate(names, edges, bootstrap=bootstrap, seed=seed)
    intervals = {k: edge_interval(e) for k, e in edges.items()}
    order = np.argsort(-ratings.rating, kind="stable")
    rows = [
        [
            rank + 1,
            names[i],
            f"{ratings.rating[i]:+.0f}",
            f"[{ratings.low[i]:+.0f}, {ratings.high[i]:+.0f}]",
            f"{np.mean([_edge(intervals, i, j) for j in range(len(names)) if j != i]):+.1f}",
        ]
        for rank, i in enumerate(order)
    ]
    text = print_table(
        f"League: {len(names)} entrants, {len(deals)} held-out deals "
        f"({len(todo)} pairs played, {len(pairs) - len(todo)} from the cache)",
        ["#", "entrant", "rating (Elo scale)", "95% interval", "mean edge bb/100"],
        rows,
    )
    return LeagueResult(names, ratings, intervals, len(todo), len(pairs) - len(todo), text)


def _edge(intervals: dict, i: int, j: int) -> float:
    return intervals[(i, j)][0] if i < j else -intervals[(j, i)][0]


def rate_league(
    client: MlflowClient,
    job: EvolveConfig,
    section: LeagueSection,
    held: DealSet,
    deal_hash: str,
) -> LeagueResult:
    """The league of ``section``'s entrants for ``job``'s registry and table, played (with the
    pair cache) on the held-out deals ``held`` (``deal_hash`` names them in the cache)."""
    entrants = gather_entrants(
        client, section, job.registry.model_name, job.table_size, job.seed, job.tracking.uri
    )
    return play_league(
        entrants,
        held,
        deal_hash,
        section.cache_dir,
        job.preflop.raise_factor,
        job.preflop.call_factor,
        section.bootstrap,
        job.seed,
        section.limits.limits(),
        section.withdraw_after,
    )


def tag_versions(client: MlflowClient, model: str, result: LeagueResult, run_id: str) -> None:
    """Tag each registry version in the league with its rating and the run that rated it."""
    r = result.ratings
    for k, name in enumerate(result.entrants):
        if name.startswith("v") and name[1:].isdigit():
            text = f"{r.rating[k]:+.0f} [{r.low[k]:+.0f}, {r.high[k]:+.0f}]"
            client.set_model_version_tag(model, name[1:], RATING_TAG, text)
            client.set_model_version_tag(model, name[1:], "league_run", run_id)
