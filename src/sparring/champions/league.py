"""The league as a service: its entrants from the registry, every pair played once, ratings.

Entrants (``league.*``): every version of the registered model (``v3``), the baseline tables
(``calling_station`` ...; a baseline's table is the same ``baseline_table`` the champion
benchmark uses, its lone player that table's first kind), the champions of listed runs
(``run:<first 8 of the id>``) and any agent specs (``league.agents``, named by their spec:
``champion@<alias|version>`` and ``poker@<baseline>`` enter as chromosomes, a ``py:``,
``cmd:`` or ``acpc:`` agent as an ``AgentEntrant`` whose table is more of the same agent).
Every pair plays the held-out deals in both seatings, as Ray tasks: two chromosome entrants in
the numba engine (``ga.round_robin``), a pair with an agent entrant through the game protocol on the
same deals (``arena.agents_on_deals``: the ``n`` seat rotations of each deal, chromosomes reading
the
deal set's equities; an agent's program starts in its pair's task and ends with it). Each
pair's per-deal results are cached in
``<cache_dir>/<deal set>-<digest a>-<digest b>.npy`` (entrants are keyed by what they play, not
their name), so adding an entrant plays only its new pairs. Each distinct agent enters once:
an entrant that plays exactly as an earlier one (the same digest: ``champion@champion`` when the
alias points at ``v7``, a baseline registered as a version) is dropped before any pair is
played, said in one line. The table ranks by chips (each entrant's mean edge over the others,
bb/100) beside the Bradley–Terry deal-win rating (``ga.round_robin``: how often it wins a deal,
whatever the margin), with a line saying which is which. ``tag_versions`` writes each registry
version's rating and chips on the version (``league_rating``, ``league_chips``,
``league_run``).

Used by the ``league`` pipeline (which logs the whole league) and by ``retrain`` (which rates
the champion after its decision).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient

from sparring.arena.agents import parse
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
from sparring.ga.round_robin import (
    Entrant,
    Ratings,
    champion_entrant,
    chip_scores,
    deal_edges,
    edge_interval,
    pair_record,
    rate,
)
from sparring.poker.bots import baseline, baseline_table
from sparring.poker.deal_generation import DealSet
from sparring.reporting.console import console, print_table
from sparring.runtime.errors import UsageError
from sparring.runtime.programs.program import Limits
from sparring.runtime.ray.parallel import parallel_map
from sparring.runtime.storage import keys
from sparring.runtime.storage.location import Location, locate

__all__ = [
    "CHIPS_TAG",
    "LEGEND",
    "RATING_TAG",
    "AgentEntrant",
    "LeagueResult",
    "baseline_entrant",
    "distinct_entrants",
    "gather_entrants",
    "league_rows",
    "play_league",
    "rate_league",
    "tag_versions",
]

RATING_TAG = "league_rating"
CHIPS_TAG = "league_chips"
LEGEND = (
    "ranked by chips: mean edge over the other entrants, bb/100; pairs: opponents beaten-lost "
    "to in chips; deal wins: how often it wins a deal, whatever the margin (Bradley-Terry, Elo)"
)


@dataclass
class LeagueResult:
    """The league's outcome. ``chips`` ranks it; ``ratings`` (deal wins) rates how often each
    entrant wins a deal, blind to the margin, and may order it otherwise (``ga.round_robin``)."""

    entrants: list[str]
    ratings: Ratings  # deal wins: Bradley-Terry, Elo scale, mean 0
    edges: dict[tuple[int, int], tuple[float, float, float]]  # (i, j), i < j -> mean, low, high
    chips: np.ndarray  # (n, 3): mean edge over the others (bb/100), its 95% low, high
    played: int  # pairs played in this run
    cached: int  # pairs read from the cache
    text: str
    same_as: dict[str, str] = field(default_factory=dict)  # a dropped entrant -> the one kept

    @property
    def ranking(self) -> list[str]:
        """The entrants best first by chips (ties in entrant order)."""
        return [self.entrants[k] for k in np.argsort(-self.chips[:, 0], kind="stable")]

    def _index(self, name: str) -> int | None:
        name = self.same_as.get(name, name)  # a duplicate is rated as the agent it is
        return self.entrants.index(name) if name in self.entrants else None

    def rating_of(self, name: str) -> tuple[float, float, float] | None:
        """An entrant's deal-win rating and its interval (None when it is not in the league;
        an entrant dropped as another's duplicate has the other's)."""
        k = self._index(name)
        if k is None:
            return None
        r = self.ratings
        return float(r.rating[k]), float(r.low[k]), float(r.high[k])

    def chips_of(self, name: str) -> tuple[float, float, float] | None:
        """An entrant's mean edge over the others (bb/100) and its interval, as ``rating_of``."""
        k = self._index(name)
        if k is None:
            return None
        mean, low, high = self.chips[k]
        return float(mean), float(low), float(high)


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
        out.append(champion_entrant(f"run:{run_id[:8]}", run_champion(client, run_id), seats))
    out += [agent_entrant(text, model, seats, uri) for text in section.agents]
    if len(out) < 2:
        raise UsageError(f"a league needs two entrants or more; found {[e.name for e in out]}")
    return out


def run_champion(client: MlflowClient, run_id: str) -> np.ndarray:
    """The chromosome of run ``run_id``'s ``champion/`` artifact; a run without one (or no such
    run) is one ``UsageError`` on ``league.runs``."""
    try:
        chromosome, _ = load_champion(client, f"runs:/{run_id}/champion")
    except (MlflowException, OSError) as exc:
        raise UsageError(f"league.runs: run {run_id} has no champion/ artifact") from exc
    return chromosome


def check_runs(client: MlflowClient, section: LeagueSection) -> None:
    """Refuse, before any deal is dealt or evolved, a ``league.runs`` id with no champion."""
    for run_id in section.runs:
        run_champion(client, run_id)


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


def distinct_entrants(entrants: list[AnyEntrant]) -> tuple[list[AnyEntrant], dict[str, str]]:
    """Each agent once: an entrant whose digest (what it plays: a chromosome entrant's lone
    player and table, an agent entrant's spec and program) is an earlier entrant's is dropped.
    Returns the entrants kept, in order, and each dropped name -> the name kept for it."""
    kept: dict[str, AnyEntrant] = {}
    same_as: dict[str, str] = {}
    for entrant in entrants:
        first = kept.setdefault(entrant.digest, entrant)
        if first is not entrant:
            same_as[entrant.name] = first.name
    return list(kept.values()), same_as


def league_rows(
    names: list[str],
    chips: np.ndarray,
    record: np.ndarray,
    ratings: Ratings,
) -> list[list[object]]:
    """The league table's rows, best first by chips (``chip_scores``; ties in entrant order):
    rank, entrant, chips [95%], pairs won-lost in chips (and drawn), deal-win rating [95%]."""
    rows: list[list[object]] = []
    for rank, k in enumerate(np.argsort(-chips[:, 0], kind="stable")):
        won, drawn, lost = (int(x) for x in record[k])
        mean, low, high = chips[k]
        rows.append(
            [
                rank + 1,
                names[k],
                f"{mean:+.1f} [{low:+.1f}, {high:+.1f}]",
                f"{won}-{lost}" + (f" ({drawn} even)" if drawn else ""),
                f"{ratings.rating[k]:+.0f} [{ratings.low[k]:+.0f}, {ratings.high[k]:+.0f}]",
            ]
        )
    return rows


def play_league(
    entrants: list[AnyEntrant],
    deals: DealSet,
    deal_hash: str,
    cache: Location | Path,
    raise_factor: float,
    call_factor: float,
    bootstrap: int,
    seed: int,
    limits: Limits | None = None,
    withdraw_after: int = 3,
) -> LeagueResult:
    """Every pair of distinct agents (cached or played as Ray tasks), their edges, chips and
    deal-win ratings; prints the league table ranked by chips, its legend and a line per entrant
    dropped as another's duplicate (all kept in the result's ``text``)."""
    names = [e.name for e in entrants]
    if len(set(names)) != len(names):
        raise UsageError(f"entrant names repeat: {names}")
    # before any pair is played: a duplicate would play itself to a draw and count twice
    entrants, same_as = distinct_entrants(entrants)
    dropped = [
        f"league: {dup} plays exactly as {kept} (the same agent): entered once, as {kept}"
        for dup, kept in same_as.items()
    ]
    for line in dropped:
        console.print(line, soft_wrap=True)
    names = [e.name for e in entrants]
    if len(names) < 2:
        raise UsageError(f"a league needs two distinct agents or more; found {names}")
    # the pair cache: a Location its caller made with the job's storage options (a local
    # directory may come as a Path)
    cache = locate(cache)
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
                "secret": keys.derive(keys.store_key(cache), "league", deal_hash),
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
    # ranked by chips, not by the deal-win rating: that one counts how often a deal is won, not
    # by how much, and put a bot that lost chips to 9 of 10 opponents 5th of 11 (#47 item 12)
    chips = chip_scores(edges, len(names))
    text = print_table(
        f"League: {len(names)} entrants, {len(deals)} held-out deals "
        f"({len(todo)} pairs played, {len(pairs) - len(todo)} from the cache)",
        ["#", "entrant", "chips bb/100 [95%]", "pairs won-lost", "deal wins, Elo [95%]"],
        league_rows(names, chips, pair_record(edges, len(names)), ratings),
    )
    console.print(LEGEND, soft_wrap=True)
    text = "\n".join([text.rstrip("\n"), LEGEND, *dropped]) + "\n"
    return LeagueResult(
        names, ratings, intervals, chips, len(todo), len(pairs) - len(todo), text, same_as
    )


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
        job.storage.locate(section.cache_dir),  # with the job's store options, made once
        job.preflop.raise_factor,
        job.preflop.call_factor,
        section.bootstrap,
        job.seed,
        section.limits.limits(),
        section.withdraw_after,
    )


def tag_versions(client: MlflowClient, model: str, result: LeagueResult, run_id: str) -> None:
    """Tag each registry version in the league (one dropped as another entrant's duplicate
    too, with that entrant's numbers) with its deal-win rating, its chips and the run."""
    for name in [*result.entrants, *result.same_as]:
        rating, chips = result.rating_of(name), result.chips_of(name)
        if not (name.startswith("v") and name[1:].isdigit()) or rating is None or chips is None:
            continue
        version = name[1:]
        text = "{:+.0f} [{:+.0f}, {:+.0f}]".format(*rating)
        client.set_model_version_tag(model, version, RATING_TAG, text)
        text = "{:+.1f} bb/100 [{:+.1f}, {:+.1f}]".format(*chips)
        client.set_model_version_tag(model, version, CHIPS_TAG, text)
        client.set_model_version_tag(model, version, "league_run", run_id)
