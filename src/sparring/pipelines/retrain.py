"""The ``retrain`` pipeline: challenger vs champion, promotion only with confidence.

1. Load the version the registry alias (``champion``) points at.
2. Evolve on fresh training deals (their seed comes from the retrain id) with part of the first
   population seeded from the champion (``pipelines.evolve.run``).
3. Play challenger and champion on the same held-out deals against every baseline table; the
   per-deal differences give the challenger's edge in bb/100 and its confidence interval.
4. Promote (register the challenger, move the alias) only when the interval's lower bound is
   above zero. The decision is an MLflow run tagged ``retrain_id`` and ``model_name``: a second
   run with the same id for the same model finds it and does nothing (idempotent for a date or
   a submission id).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from mlflow.exceptions import MlflowException
from scipy.stats import norm

from sparring.config.evolve import RetrainConfig
from sparring.ga.fitness import bb_per_100
from sparring.pipelines import evolve
from sparring.pipelines.dealsets import ensure_deal_set, load_deal_set
from sparring.pipelines.report import console, print_table
from sparring.poker.bots import BASELINES, baseline_table
from sparring.poker.engine import play_deals
from sparring.runtime.config import config_hash
from sparring.runtime.errors import UsageError
from sparring.runtime.ray_session import init_ray
from sparring.runtime.registry import load_registered, log_champion, register
from sparring.runtime.tracking import tracked_run


def _previous(client, experiment: str, retrain_id: str, model: str):
    """A finished retrain run of this model with this id, if any."""
    exp = client.get_experiment_by_name(experiment)
    if exp is None:
        return None
    runs = client.search_runs(
        [exp.experiment_id],
        filter_string=f"tags.retrain_id = '{retrain_id}' and tags.model_name = '{model}' "
        "and attributes.status = 'FINISHED'",
    )
    return runs[0] if runs else None


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
    """Evolve a challenger and decide; returns ``decision`` (promoted, kept or skipped), the run
    id, the ``edge`` in bb/100 with its lower bound ``low`` and the champion's version."""
    retrain_id = str(job.retrain.id or dt.datetime.now(dt.UTC).date().isoformat())
    fraction, confidence = job.retrain.seed_fraction, job.retrain.confidence
    name, alias = job.registry.model_name, job.registry.alias
    with tracked_run(job, "retrain", tags={"retrain_id": retrain_id, "model_name": name}) as mlrun:
        done = _previous(mlrun.client, job.tracking.experiment or "retrain", retrain_id, name)
        if done is not None and done.info.run_id != mlrun.run_id:
            decision = done.data.tags.get("decision", "?")
            console.print(
                f"retrain {retrain_id} already ran (run {done.info.run_id}: "
                f"{decision}); nothing to do"
            )
            mlrun.set_tags({"decision": "skipped", "previous_run": done.info.run_id})
            return {"decision": "skipped", "run_id": mlrun.run_id, "previous": done.info.run_id}
        try:
            champion, info, version = load_registered(mlrun.client, name, alias)
        except MlflowException as exc:
            raise UsageError(
                f"no model {name!r} with alias {alias!r} in the registry: run "
                "pipelines/evolve.py first"
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
            checkpoint_root=str(Path(job.retrain.checkpoint_root) / retrain_id),
            tracking=replace(job.tracking, parent_run_id=mlrun.run_id),
        )
        init_ray(job.ray)
        out = evolve.run(
            evolve_cfg,
            seed_individual=champion,
            seed_fraction=fraction,
            tags={"retrain_id": retrain_id},
        )
        challenger = out["state"].champion
        held = load_deal_set(ensure_deal_set(job.deal_set("heldout"), job.deals.root)[0])
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
        low = mean - float(norm.ppf(confidence)) * se
        promote = low > 0
        metrics = {
            "edge_bb100": mean,
            "edge_low": low,
            "edge_se": se,
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
        print_table(
            f"Retrain {retrain_id}: challenger vs champion v{version}",
            ["edge bb/100", f"{confidence:.0%} lower bound", "deals", "decision"],
            [
                [
                    f"{mean:+.2f}",
                    f"{low:+.2f}",
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
        "version": new_version or version,
    }
