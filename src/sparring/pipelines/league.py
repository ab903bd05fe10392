"""The ``league`` pipeline: every champion version, the baselines and chosen runs, rated.

Entrants (``league.*``): every version of the registered model (``v3``), the baseline tables
(``calling_station`` ...; a baseline's table is the same ``baseline_table`` the champion
benchmark uses, its lone player that table's first kind) and the champions of listed runs
(``run:<first 8 of the id>``). Every pair plays the held-out deals of the evolve config in both
seatings (``ga.league``); each pair's per-deal results are cached in
``<cache_dir>/<deal set>-<digest a>-<digest b>.npy`` (entrants are keyed by what they play, not
their name), so adding an entrant plays only its new pairs. The run logs the ratings, the edges,
a heatmap and the table to MLflow and tags each registry version with its rating.
"""

from __future__ import annotations

import json
import os
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient

from sparring.champions.registry import load_champion
from sparring.config.evolve import EvolveConfig, LeagueConfig, LeagueSection
from sparring.ga.league import Entrant, Ratings, champion_entrant, deal_edges, edge_interval, rate
from sparring.ga.league import play_pair as play_pair_kernel
from sparring.poker.bots import baseline_table
from sparring.reporting.console import console, print_locations, print_table
from sparring.reporting.plots import heatmap
from sparring.runtime import storage
from sparring.runtime.errors import UsageError
from sparring.runtime.parallel import parallel_map
from sparring.runtime.ray_session import init_ray
from sparring.runtime.tracking import RunLogger, tracked_run
from sparring.services.dealsets import ensure_deal_set, load_deal_set, log_deal_set

RATING_TAG = "league_rating"


@dataclass
class LeagueResult:
    entrants: list[str]
    ratings: Ratings
    edges: dict[tuple[int, int], tuple[float, float, float]]  # (i, j), i < j -> mean, low, high
    played: int  # pairs played in this run
    cached: int  # pairs read from the cache
    text: str


def baseline_entrant(name: str, seats: int, seed: int) -> Entrant:
    table = baseline_table(name, seats - 1, seed=seed)
    return Entrant(name, baseline_table(name, 1, seed=seed)[0], table)


def gather_entrants(
    client: MlflowClient, section: LeagueSection, model: str, seats: int, seed: int
) -> list[Entrant]:
    """The league's entrants in a stable order: versions, baselines, runs."""
    out: list[Entrant] = []
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
    if len(out) < 2:
        raise UsageError(f"a league needs two entrants or more; found {[e.name for e in out]}")
    return out


def _pair_path(cache_dir: Path, deals: str, a: Entrant, b: Entrant) -> tuple[Path, bool]:
    """The cache file of a pair and whether (a, b) is stored flipped."""
    da, db = a.digest, b.digest
    flipped = da > db
    lo, hi = (db, da) if flipped else (da, db)
    return cache_dir / f"{deals}-{lo}-{hi}.npy", flipped


def _read_pair(path: Path, flipped: bool, deals: int) -> np.ndarray | None:
    try:
        pair = np.load(path, allow_pickle=False)
    except (OSError, ValueError):
        return None  # missing, or a damaged file: play the pair again
    if pair.shape != (deals, 2) or not np.isfinite(pair).all():
        return None
    return pair[:, ::-1] if flipped else pair


def _write_pair(path: Path, flipped: bool, pair: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp.npy")
    np.save(tmp, pair[:, ::-1] if flipped else pair)
    os.replace(tmp, path)  # atomic: a reader sees the old file or the whole new one


def play_pair_task(
    pair: tuple[Entrant, Entrant], deals: tuple, raise_factor: float, call_factor: float
) -> np.ndarray:
    """One Ray task: both seatings of one pair."""
    equity, strength = deals
    return play_pair_kernel(pair[0], pair[1], equity, strength, raise_factor, call_factor)


def play_league(
    entrants: list[Entrant],
    equity: np.ndarray,
    strength: np.ndarray,
    deal_hash: str,
    cache_dir: str | Path,
    raise_factor: float,
    call_factor: float,
    bootstrap: int,
    seed: int,
) -> LeagueResult:
    """Every pair (cached or played as Ray tasks), their edges and the ratings."""
    names = [e.name for e in entrants]
    if len(set(names)) != len(names):
        raise UsageError(f"entrant names repeat: {names}")
    cache = Path(cache_dir)
    pairs = [(i, j) for i in range(len(entrants)) for j in range(i + 1, len(entrants))]
    results: dict[tuple[int, int], np.ndarray] = {}
    todo = []
    for i, j in pairs:
        path, flipped = _pair_path(cache, deal_hash, entrants[i], entrants[j])
        found = _read_pair(path, flipped, len(strength))
        if found is None:
            todo.append((i, j))
        else:
            results[(i, j)] = found
    played = (
        parallel_map(
            play_pair_task,
            [(entrants[i], entrants[j]) for i, j in todo],
            shared={
                "deals": (equity, strength),
                "raise_factor": raise_factor,
                "call_factor": call_factor,
            },
            description=f"league: {len(todo)} new pairs of {len(pairs)}",
        )
        if todo
        else []
    )
    for (i, j), pair in zip(todo, played, strict=True):
        path, flipped = _pair_path(cache, deal_hash, entrants[i], entrants[j])
        _write_pair(path, flipped, pair)
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
        f"League: {len(names)} entrants, {len(strength)} held-out deals "
        f"({len(todo)} pairs played, {len(pairs) - len(todo)} from the cache)",
        ["#", "entrant", "rating (Elo scale)", "95% interval", "mean edge bb/100"],
        rows,
    )
    return LeagueResult(names, ratings, intervals, len(todo), len(pairs) - len(todo), text)


def _edge(intervals: dict, i: int, j: int) -> float:
    return intervals[(i, j)][0] if i < j else -intervals[(j, i)][0]


def rate_in_league(
    job: EvolveConfig, section: LeagueSection, client: MlflowClient, mlrun: RunLogger | None
) -> LeagueResult:
    """Gather the entrants, play (with the cache) and, given a run, log everything to it."""
    held_settings = job.deal_set("heldout")
    held_dir = ensure_deal_set(held_settings, job.deals.root)[0]
    held = load_deal_set(held_dir)
    entrants = gather_entrants(client, section, job.registry.model_name, job.table_size, job.seed)
    result = play_league(
        entrants,
        held.equity,
        held.strength,
        held_settings.data_hash,
        section.cache_dir,
        job.preflop.raise_factor,
        job.preflop.call_factor,
        section.bootstrap,
        job.seed,
    )
    if mlrun is not None:
        log_deal_set(mlrun, "deals-heldout", held_settings, held_dir, len(held), "heldout")
        _log(mlrun, result)
        if section.tag_versions:
            tag_versions(client, job.registry.model_name, result, mlrun.run_id)
    return result


def _log(mlrun: RunLogger, result: LeagueResult) -> None:
    r = result.ratings
    metrics: dict[str, float] = {
        "entrants": len(result.entrants),
        "pairs_played": result.played,
        "pairs_cached": result.cached,
    }
    for k, name in enumerate(result.entrants):
        metrics[f"rating/{name}"] = float(r.rating[k])
        metrics[f"rating_low/{name}"] = float(r.low[k])
        metrics[f"rating_high/{name}"] = float(r.high[k])
    for (i, j), (mean, _, _) in result.edges.items():
        metrics[f"edge/{result.entrants[i]}/{result.entrants[j]}"] = mean
    mlrun.log_metrics(metrics)
    n = len(result.entrants)
    matrix = np.full((n, n), np.nan)
    for (i, j), (mean, _, _) in result.edges.items():
        matrix[i, j], matrix[j, i] = mean, -mean
    mlrun.log_text(result.text, "league.txt")
    mlrun.log_text(
        json.dumps(
            {
                "entrants": result.entrants,
                "rating": r.rating.tolist(),
                "low": r.low.tolist(),
                "high": r.high.tolist(),
                "edges": [
                    {
                        "a": result.entrants[i],
                        "b": result.entrants[j],
                        "edge_bb100": m,
                        "low": lo,
                        "high": hi,
                    }
                    for (i, j), (m, lo, hi) in result.edges.items()
                ],
            },
            indent=2,
        ),
        "league.json",
    )
    with tempfile.TemporaryDirectory() as tmp:
        plot = heatmap(
            Path(tmp) / "league_edges.png",
            result.entrants,
            matrix,
            "League: row's edge over column (bb/100, both seatings)",
            "edge of the row entrant, bb/100",
        )
        mlrun.log_artifact(plot)


def tag_versions(client: MlflowClient, model: str, result: LeagueResult, run_id: str) -> None:
    r = result.ratings
    for k, name in enumerate(result.entrants):
        if name.startswith("v") and name[1:].isdigit():
            text = f"{r.rating[k]:+.0f} [{r.low[k]:+.0f}, {r.high[k]:+.0f}]"
            client.set_model_version_tag(model, name[1:], RATING_TAG, text)
            client.set_model_version_tag(model, name[1:], "league_run", run_id)


def run(job: LeagueConfig) -> dict[str, Any]:
    """Run the league; returns the entrants, ratings, the MLflow run id and ``metrics``
    (``rating/<entrant>``, ``edge/<a>/<b>``, ``pairs_played``, ``pairs_cached``)."""
    storage.configure(job.storage)
    init_ray(job.ray)
    with tracked_run(job, "league") as mlrun:
        result = rate_in_league(job, job.league, mlrun.client, mlrun)
    print_locations(
        {"pair cache": Path(job.league.cache_dir).resolve()}, job.tracking.uri, mlrun.run_id
    )
    metrics = {
        f"rating/{n}": float(v) for n, v in zip(result.entrants, result.ratings.rating, strict=True)
    }
    metrics.update(pairs_played=result.played, pairs_cached=result.cached)
    return {"run_id": mlrun.run_id, "league": result, "metrics": metrics}
