"""The ``retrain`` pipeline: challenger vs champion, promotion only with confidence.

1. Load the version the registry alias (``champion``) points at.
2. Evolve on fresh training deals (their seed comes from the retrain id) with part of the first
   population seeded from the champion (``pipelines.evolve.run``); that evolve run is nested under
   the retrain run in the ``retrain`` experiment.
3. Play challenger and champion on the same held-out deals against every baseline table; the
   per-deal differences give the challenger's edge in bb/100 and its confidence interval.
4. Promote (register the challenger, move the alias) only when the interval's lower bound is
   above zero.

Safe to run unattended: a retrain id (a date or a submission id) is claimed atomically in the
MLflow store (``runtime.claims``), so a second retrain with the same id exits with one line naming
the run that holds it; once an id is decided, running it again reports that decision and exits
with its status: 0 promoted, 10 kept (1 when it failed, 2 when refused before any work). With
``notify.url`` the decision is POSTed as JSON.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

import numpy as np
from mlflow.entities import Run
from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient
from scipy.stats import norm

from sparring.champions.claims import acquire, claim_key
from sparring.champions.notify import post_json
from sparring.champions.registry import load_registered, log_champion, register
from sparring.config.evolve import RetrainConfig
from sparring.ga.fitness import bb_per_100
from sparring.pipelines import evolve
from sparring.pipelines.league import rate_in_league, tag_versions
from sparring.poker.bots import BASELINES, baseline_table
from sparring.poker.engine import play_deals
from sparring.reporting.console import console, print_table
from sparring.runtime import storage
from sparring.runtime.config import config_hash
from sparring.runtime.errors import UsageError, one_line
from sparring.runtime.ray_session import init_ray
from sparring.runtime.storage import locate
from sparring.runtime.tracking import open_store, tracked_run
from sparring.services.dealsets import ensure_deal_set, load_deal_set, log_deal_set

EXPERIMENT = "retrain"
EXIT_STATUS = {"promoted": 0, "kept": 10, "failed": 1}
DECISIONS = ("promoted", "kept")


def exit_status(result: dict[str, Any]) -> int:
    """The process exit status for a retrain's result (0 promoted, 10 kept)."""
    return EXIT_STATUS[result["decision"]]


def decisions(
    client: MlflowClient,
    experiment: str = EXPERIMENT,
    model: str | None = None,
    retrain_id: str | None = None,
) -> list[Run]:
    """The finished retrain runs that decided (promoted or kept), newest first."""
    exp = client.get_experiment_by_name(experiment)
    if exp is None:
        return []
    wanted = ["attributes.status = 'FINISHED'", "tags.pipeline = 'retrain'"]
    if model is not None:
        wanted.append(f"tags.model_name = '{model}'")
    if retrain_id is not None:
        wanted.append(f"tags.retrain_id = '{retrain_id}'")
    runs = client.search_runs(
        [exp.experiment_id], " and ".join(wanted), order_by=["attributes.start_time DESC"]
    )
    return [r for r in runs if r.data.tags.get("decision") in DECISIONS]


def result_of(run: Run) -> dict[str, Any]:
    """A decided retrain run as ``run`` returns it."""
    metrics, tags = run.data.metrics, run.data.tags
    return {
        "decision": tags["decision"],
        "run_id": run.info.run_id,
        "metrics": dict(metrics),
        "edge": metrics.get("edge_bb100"),
        "low": metrics.get("edge_low"),
        "high": metrics.get("edge_high"),
        "version": tags.get("new_version") or tags.get("champion_version"),
    }


def edge(
    challenger: np.ndarray,
    champion: np.ndarray,
    equity: np.ndarray,
    strength: np.ndarray,
    raise_factor: float,
    call_factor: float,
    seed: int,
) -> np.ndarray:
    """Per held-out deal: challenger's minus champion's bb/100, averaged over the baseline
    tables (the same deals and opponents for both: a paired comparison)."""
    n = strength.shape[1]
    diffs = []
    for name in BASELINES:
        others = baseline_table(name, n - 1, seed=seed)
        results = [
            play_deals(
                equity, strength, np.concatenate([p[None], others]), raise_factor, call_factor
            )
            for p in (challenger, champion)
        ]
        diffs.append(
            np.asarray(
                bb_per_100(results[0].net_per_deal[:, 0] - results[1].net_per_deal[:, 0], n * n)
            )
        )
    return np.mean(diffs, axis=0)


def run(job: RetrainConfig) -> dict[str, Any]:
    """Evolve a challenger and decide; returns ``decision`` (promoted or kept), the run id, the
    ``edge`` in bb/100 with its bounds ``low``/``high`` and the champion's version. For an id
    already decided it returns that decision (``rerun`` True) and changes nothing."""
    storage.configure(job.storage)  # the deal sets and checkpoints may be on a store
    retrain_id = str(job.retrain.id or dt.datetime.now(dt.UTC).date().isoformat())
    name = job.registry.model_name
    experiment = job.tracking.experiment or EXPERIMENT
    client = open_store(job.tracking.uri)
    what = f"retrain {retrain_id} of model {name}"
    done = decisions(client, experiment, name, retrain_id)
    if done:
        return _report_earlier(what, done[0])
    claim = acquire(client, claim_key(name, "retrain", retrain_id), what)
    try:
        done = decisions(client, experiment, name, retrain_id)  # decided while we waited
        if done:
            return _report_earlier(what, done[0])
        with tracked_run(
            job,
            "retrain",
            tags={"retrain_id": retrain_id, "model_name": name},
            run_name=f"retrain {retrain_id} {name}",
        ) as mlrun:
            claim.attach_run(mlrun.run_id)
            base = {"retrain_id": retrain_id, "model": name, "run_id": mlrun.run_id}
            try:
                result = _challenge(job, mlrun, retrain_id, experiment)
            except Exception as exc:
                failure = {"decision": "failed", "error": one_line(exc) or repr(exc)}
                _notify(job, mlrun, {**base, **failure})
                raise
            _notify(job, mlrun, {**base, **_payload(result)})
    finally:
        claim.release()
    return result


def _report_earlier(what: str, earlier: Run) -> dict[str, Any]:
    result = {**result_of(earlier), "rerun": True}
    console.print(
        f"{what} was already decided: {result['decision']} (run {result['run_id']}, edge "
        f"{_bb(result['edge'])} bb/100, interval [{_bb(result['low'])}, {_bb(result['high'])}]); "
        "nothing to do"
    )
    return result


def _bb(value: float | None) -> str:
    return "?" if value is None else f"{value:+.2f}"


def _payload(result: dict[str, Any]) -> dict[str, Any]:
    metrics = result["metrics"]
    return {
        "decision": result["decision"],
        "exit_status": exit_status(result),
        "edge_bb100": metrics["edge_bb100"],
        "edge_low": metrics["edge_low"],
        "edge_high": metrics["edge_high"],
        "confidence": metrics["confidence"],
        "heldout_deals": int(metrics["heldout_deals"]),
        "champion_version": result["champion_version"],
        "new_version": result["new_version"],
    }


def _notify(job: RetrainConfig, mlrun: Any, payload: dict[str, Any]) -> None:
    if not job.notify.url:
        return
    payload = {**payload, "tracking_uri": job.tracking.uri}
    error = post_json(job.notify.url, payload, job.notify.timeout_s)
    if error:
        console.print(f"[yellow]warning:[/yellow] notification failed: {error}")
    mlrun.set_tags({"notify": f"failed: {error}" if error else "sent"})


def _league_rating(job: RetrainConfig, mlrun: Any, version: str) -> dict[str, float]:
    """The champion's (after the decision) rating in the league of every version and the
    baselines, logged as ``league_rating`` (the pair cache makes this the new pairs only)."""
    league = rate_in_league(job, job.league, mlrun.client, None)
    if job.league.tag_versions:
        tag_versions(mlrun.client, job.registry.model_name, league, mlrun.run_id)
    if f"v{version}" not in league.entrants:
        return {}
    k = league.entrants.index(f"v{version}")
    r = league.ratings
    rating = {
        "league_rating": float(r.rating[k]),
        "league_rating_low": float(r.low[k]),
        "league_rating_high": float(r.high[k]),
    }
    mlrun.log_metrics(rating)
    console.print(
        f"champion v{version}: league rating {r.rating[k]:+.0f} "
        f"[{r.low[k]:+.0f}, {r.high[k]:+.0f}] among {len(league.entrants)} entrants"
    )
    return rating


def _challenge(job: RetrainConfig, mlrun: Any, retrain_id: str, experiment: str) -> dict[str, Any]:
    """Steps 1-4 inside the claimed retrain run."""
    fraction, confidence = job.retrain.seed_fraction, job.retrain.confidence
    name, alias = job.registry.model_name, job.registry.alias
    try:
        champion, info, version = load_registered(mlrun.client, name, alias)
    except MlflowException as exc:
        raise UsageError(
            f"no model {name!r} with alias {alias!r} in the registry: run pipelines/evolve.py first"
        ) from exc
    if int(info.get("table_size", job.table_size)) != job.table_size:
        raise UsageError(
            f"the champion plays {info['table_size']} seats; table_size={job.table_size}"
        )
    # Fresh training deals for this id; the held-out set stays fixed (the yardstick).
    train_seed = int(config_hash({"retrain": retrain_id}, 8), 16) % 1_000_000 + 1000
    if train_seed == job.deals.heldout_seed:
        train_seed += 1
    evolve_cfg = replace(
        job,
        deals=replace(job.deals, train_seed=train_seed),
        registry=replace(job.registry, register=False),
        resume=True,  # a rerun after a crash continues the same evolution
        checkpoint_root=str(locate(job.retrain.checkpoint_root) / retrain_id),
        # the challenger's evolution is part of this retrain: nested here, not in `evolve`
        tracking=replace(job.tracking, parent_run_id=mlrun.run_id, experiment=experiment),
    )
    init_ray(job.ray)
    out = evolve.run(
        evolve_cfg,
        seed_individual=champion,
        seed_fraction=fraction,
        tags={"retrain_id": retrain_id},
        run_name=f"retrain {retrain_id} challenger",
    )
    challenger = out["state"].champion
    held_settings = job.deal_set("heldout")
    held_dir = ensure_deal_set(held_settings, job.deals.root)[0]
    held = load_deal_set(held_dir)
    log_deal_set(mlrun, "deals-heldout", held_settings, held_dir, len(held), "heldout")
    diff = edge(
        challenger,
        champion,
        held.equity,
        held.strength,
        job.preflop.raise_factor,
        job.preflop.call_factor,
        job.seed,
    )
    mean = float(diff.mean())
    se = float(diff.std(ddof=1) / np.sqrt(len(diff))) if len(diff) > 1 else float("inf")
    z = float(norm.ppf(confidence))
    low, high = mean - z * se, mean + z * se
    promote = low > 0
    metrics = {
        "edge_bb100": mean,
        "edge_low": low,
        "edge_high": high,
        "edge_se": se,
        "confidence": confidence,
        "heldout_deals": len(diff),
        "promoted": float(promote),
    }
    mlrun.log_metrics(metrics)
    decision = "promoted" if promote else "kept"
    new_version = None
    if promote:
        log_champion(
            mlrun.client,
            mlrun.run_id,
            challenger,
            {
                **info,
                "fitness": out["state"].champion_fitness,
                "retrain_id": retrain_id,
                "previous_version": version,
            },
        )
        new_version = register(mlrun.client, name, mlrun.run_id, alias)
    mlrun.set_tags(
        {"decision": decision, "champion_version": version, "new_version": new_version or ""}
    )
    rating = _league_rating(job, mlrun, new_version or version)
    metrics.update(rating)
    print_table(
        f"Retrain {retrain_id}: challenger vs champion v{version}",
        ["edge bb/100", f"{confidence:.0%} lower bound", "upper bound", "deals", "decision"],
        [
            [
                f"{mean:+.2f}",
                f"{low:+.2f}",
                f"{high:+.2f}",
                len(diff),
                decision + (f" (v{new_version})" if new_version else ""),
            ]
        ],
    )
    return {
        "decision": decision,
        "run_id": mlrun.run_id,
        "metrics": metrics,
        "edge": mean,
        "low": low,
        "high": high,
        "version": new_version or version,
        "champion_version": version,
        "new_version": new_version,
    }
