"""The ``league`` pipeline: every champion version, the baselines and chosen runs, rated.

The entrants (``league.*``) play every pair on the held-out deals of the evolve config in both
seatings, through the pair cache (``champions.league``: adding an entrant plays only its new
pairs; each distinct agent once). The run records the held-out deal set as its input and
logs the chips, ratings and edges (``chips/<entrant>``: its mean edge over the others, bb/100,
what the table ranks by; ``rating/<entrant>``: its deal-win rating, Elo scale; an agent spec
named by ``arena.agents.short_name``, a program by its file; ``chips_low/…``, ``chips_high/…``,
``rating_low/…``, ``rating_high/…``, ``edge/<a>/<b>``, ``entrants``, ``pairs_played``,
``pairs_cached``), the table (``league.txt``), the same numbers as JSON (``league.json``) and a
heatmap of the edges (``league_edges.png``); with ``league.tag_versions`` each registry version
is tagged with its rating and chips.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from sparring.arena.agents import short_names
from sparring.champions.league import LeagueResult, check_runs, rate_league, tag_versions
from sparring.config.evolve import LeagueConfig
from sparring.frame.deal_set_store import open_deal_set
from sparring.frame.session import Session, pipeline_session
from sparring.reporting.plots import heatmap
from sparring.runtime.config import metric_name

__all__ = ["run"]


def run(job: LeagueConfig) -> dict[str, Any]:
    """Run the league; returns the entrants, ratings, the MLflow run id and ``metrics``
    (``chips/<entrant>``, ``rating/<entrant>``, ``pairs_played``, ``pairs_cached``); the
    ``league`` result holds the entrants, chips, ratings, edges and table."""
    with pipeline_session(job, "league") as session:
        session.output("pair cache", session.locate(job.league.cache_dir))
        check_runs(session.run.client, job.league)  # before the deals, which can take minutes
        held_settings = job.deal_set("heldout")
        _, held = open_deal_set(
            session.run, held_settings, session.locate(job.deals.root), "heldout"
        )
        client = session.run.client
        result = rate_league(client, job, job.league, held, held_settings.data_hash)
        _log(session, result)
        if job.league.tag_versions:
            tag_versions(client, job.registry.model_name, result, session.run_id)
    keys = short_names(result.entrants)
    metrics: dict[str, float] = {
        metric_name("rating", k): float(v)
        for k, v in zip(keys, result.ratings.rating, strict=True)
    }
    metrics |= {
        metric_name("chips", k): float(v) for k, v in zip(keys, result.chips[:, 0], strict=True)
    }
    metrics.update(pairs_played=result.played, pairs_cached=result.cached)
    return session.results(metrics, league=result)


def _log(session: Session, result: LeagueResult) -> None:
    """The league's metrics, its table, its JSON and the heatmap of the edges."""
    r = result.ratings
    metrics: dict[str, float] = {
        "entrants": len(result.entrants),
        "pairs_played": result.played,
        "pairs_cached": result.cached,
    }
    keys = short_names(result.entrants)  # a program by its file's name, unique
    for k, name in enumerate(keys):
        for part, value in zip(("chips", "chips_low", "chips_high"), result.chips[k], strict=True):
            metrics[metric_name(part, name)] = float(value)
        metrics[metric_name("rating", name)] = float(r.rating[k])
        metrics[metric_name("rating_low", name)] = float(r.low[k])
        metrics[metric_name("rating_high", name)] = float(r.high[k])
    for (i, j), (mean, _, _) in result.edges.items():
        metrics[metric_name("edge", keys[i], keys[j])] = mean
    session.log_metrics(metrics)
    session.run.log_text(result.text, "league.txt")
    session.run.log_text(json.dumps(_as_json(result), indent=2), "league.json")
    n = len(result.entrants)
    matrix = np.full((n, n), np.nan)
    for (i, j), (mean, _, _) in result.edges.items():
        matrix[i, j], matrix[j, i] = mean, -mean
    session.log_plot(
        lambda directory: heatmap(
            directory / "league_edges.png",
            result.entrants,
            matrix,
            "League: row's edge over column (bb/100, both seatings)",
            "edge of the row entrant, bb/100",
        )
    )


def _as_json(result: LeagueResult) -> dict[str, Any]:
    r = result.ratings
    return {
        "entrants": result.entrants,
        "ranking": result.ranking,  # by chips
        "same_as": result.same_as,  # an entrant dropped as another's duplicate -> the one kept
        "chips": result.chips[:, 0].tolist(),
        "chips_low": result.chips[:, 1].tolist(),
        "chips_high": result.chips[:, 2].tolist(),
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
    }
