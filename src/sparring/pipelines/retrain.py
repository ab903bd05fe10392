"""The ``retrain`` pipeline: challenger vs champion, promotion only with confidence.

1. Load the version the registry alias (``champion``) points at.
2. Evolve on fresh training deals (their seed comes from the retrain id) with part of the first
   population seeded from the champion (``pipelines.evolve.run``); that evolve run is nested under
   the retrain run in the ``retrain`` experiment. With ``retrain.challenger`` (an agent spec
   that is a chromosome: ``champion@<alias|version>``, ``poker@<baseline>``) that one
   challenges instead, and nothing is evolved.
3. Play challenger and champion on the same held-out deals against every baseline table; the
   per-deal differences give the challenger's edge in bb/100 and its confidence interval
   (``ga.promotion``). With ``retrain.test=sprt`` the deals are played ``retrain.sprt.look`` at
   a time until the SPRT on the edges accepts H0 or H1 (or the held-out deals run out).
4. Promote (register the challenger, move the alias) only when the interval's lower bound is
   above zero (sprt: when it accepted H1); then rate the champion in the league
   (``champions.league``).

Safe to run unattended: a retrain id (a date or a submission id) is claimed atomically in the
MLflow store (``champions.claims``), so a second retrain with the same id exits with one line
naming the run that holds it; once an id is decided (``champions.decisions``), running it again
reports that decision and exits with its status: 0 promoted or kept (1 when it failed, 2 when
refused before any work). A refusal (no champion, or one of another table size) creates no run.
With ``notify.url`` the outcome is POSTed as JSON: the decision, a failure or a refusal.
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import replace
from typing import Any

import numpy as np
from mlflow.entities import Run
from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient

from sparring.arena.agents import parse
from sparring.champions.claims import acquire, claim_key
from sparring.champions.decisions import (
    EXPERIMENT,
    decisions,
    exit_status,
    failure,
    payload,
    refusal,
    result_of,
)
from sparring.champions.league import check_runs, rate_league, tag_versions
from sparring.champions.notify import NOTIFY_URL_ENV, post_json
from sparring.champions.registry import (
    load_registered,
    log_champion,
    register,
    resolve_champion,
)
from sparring.config.evolve import PromotionTest, RetrainConfig
from sparring.frame.deal_set_store import open_deal_set
from sparring.frame.session import Session, pipeline_session
from sparring.ga.promotion import Promotion, Sequential, decide, paired_edges
from sparring.pipelines import evolve
from sparring.poker.bots import baseline
from sparring.poker.deal_generation import DealSet
from sparring.reporting.console import console
from sparring.runtime.config import config_hash
from sparring.runtime.errors import UsageError
from sparring.runtime.redact import redact_url
from sparring.runtime.tracking.runs import open_store

__all__ = ["exit_status", "run"]  # exit_status: the launcher's exit code of a result


def run(job: RetrainConfig) -> dict[str, Any]:
    """Evolve a challenger and decide; returns ``decision`` (promoted or kept), the run id, the
    ``edge`` in bb/100 with its bounds ``low``/``high`` and the champion's version. For an id
    already decided it returns that decision (``rerun`` True) and changes nothing."""
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
        base: dict[str, Any] = {"retrain_id": retrain_id, "model": name}
        champion = _champion_or_refuse(job, client, base)
        with pipeline_session(
            job,
            "retrain",
            tags={"retrain_id": retrain_id, "model_name": name},
            run_name=f"retrain {retrain_id} {name}",
            # an evolved challenger's evolve run starts Ray; a named one's deal set and league
            # need it here (a refusal, above, costs nothing either way)
            uses_ray=bool(job.retrain.challenger),
        ) as session:
            claim.attach_run(session.run_id)
            base["run_id"] = session.run_id
            try:
                result = _challenge(job, session, champion, retrain_id, experiment)
            except Exception as exc:
                _notify(job, {**base, **failure(exc)}, session)
                raise
            _notify(job, {**base, **payload(result)}, session)
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


def _notify(job: RetrainConfig, payload: dict[str, Any], session: Session | None = None) -> None:
    """POST the outcome to ``notify.url``; a failed POST is a warning and, when there is a run
    (``session``: none for a refusal), its ``notify`` tag."""
    url = job.notify.url or os.environ.get(NOTIFY_URL_ENV)
    if not url:
        return
    payload = {**payload, "tracking_uri": redact_url(job.tracking.uri)}  # the hook sees no secret
    error = post_json(url, payload, job.notify.timeout_s)
    if error:
        console.print(f"[yellow]warning:[/yellow] notification failed: {error}")
    if session is not None:
        session.run.set_tags({"notify": f"failed: {error}" if error else "sent"})


Champion = tuple[np.ndarray, dict[str, Any], str]  # chromosome, description, version


def _champion_or_refuse(job: RetrainConfig, client: MlflowClient, base: dict[str, Any]) -> Champion:
    """Step 1, before any run exists: the champion, or a refusal (``UsageError``, exit 2) that
    is POSTed as ``refused`` with its reason and creates no run. A ``league.runs`` id without a
    champion is refused here too: its league comes only after the evolution."""
    try:
        found = _champion(client, job)
        check_runs(client, job.league)
        return found
    except UsageError as exc:
        _notify(job, {**base, **refusal(exc)})
        raise


def _challenge(
    job: RetrainConfig, session: Session, found: Champion, retrain_id: str, experiment: str
) -> dict[str, Any]:
    """Steps 2-4 inside the claimed retrain run, against the champion ``found`` in step 1."""
    champion, info, version = found
    evolved: dict[str, float] = {}  # the challenger's own figures, from its evolve run
    if job.retrain.challenger:
        challenger = _named_challenger(job)
        fitness = None
    else:
        out = _evolve_challenger(job, session, champion, retrain_id, experiment)
        challenger, fitness = out["state"].champion, out["state"].champion_fitness
        evolved = {k: v for k, v in out["metrics"].items() if k.startswith("champion_bb100")}
    held_settings = job.deal_set("heldout")
    _, held = open_deal_set(session.run, held_settings, session.locate(job.deals.root), "heldout")
    if job.retrain.test is PromotionTest.sprt:
        promotion = _sequential(job, challenger, champion, held)
    else:
        rf, cf = job.preflop.raise_factor, job.preflop.call_factor
        edges = paired_edges(challenger, champion, held.equity, held.strength, rf, cf, job.seed)
        promotion = decide(edges, job.retrain.confidence)
    metrics = promotion.metrics()
    session.log_metrics(metrics)
    new_version = (
        _promote(session, job, challenger, info, fitness, retrain_id, version)
        if promotion.promote
        else None
    )
    if new_version is not None and evolved:
        # this run is the new version's source: its champion's figures (compare --model
        # ranks the versions by them) are the evolved challenger's
        session.log_metrics(evolved)
        metrics.update(evolved)
    tags = {"decision": promotion.decision, "champion_version": version}
    session.run.set_tags({**tags, "new_version": new_version or ""})
    champion_now = new_version or version
    metrics.update(_league_rating(job, session, champion_now, held, held_settings.data_hash))
    _print_decision(session, retrain_id, version, new_version, promotion)
    return session.results(
        metrics,
        decision=promotion.decision,
        edge=promotion.mean,
        low=promotion.low,
        high=promotion.high,
        version=champion_now,
        champion_version=version,
        new_version=new_version,
    )


def _sequential(
    job: RetrainConfig, challenger: np.ndarray, champion: np.ndarray, held: DealSet
) -> Promotion:
    """Step 3 by the SPRT: held-out deals ``look`` at a time until it decides; the promotion
    on the deals it played."""
    section = job.retrain.sprt
    test = section.test(len(held))
    rf, cf = job.preflop.raise_factor, job.preflop.call_factor
    edges = np.empty(0)
    verdict, used = "continue", 0
    for start in range(0, len(held), section.look):
        part = held.subset(slice(start, start + section.look))
        more = paired_edges(challenger, champion, part.equity, part.strength, rf, cf, job.seed)
        edges = np.concatenate([edges, more])
        verdict, used = test.decide(edges)
        if verdict != "continue":
            break
    verdict = "none" if verdict == "continue" else verdict  # the held-out deals ran out
    played = edges[:used]
    llr = float(test.llr_path(played)[-1]) if used else 0.0
    fixed = test.fixed_units(float(played.var(ddof=1))) if used > 1 else len(held)
    sequential = Sequential(verdict, llr, fixed, len(held))
    console.print(
        f"SPRT of edge {section.edge0:g} against {section.edge1:g} bb/100 "
        f"(alpha {section.alpha:g}, beta {section.beta:g}): "
        + ("no verdict" if verdict == "none" else f"{verdict} accepted")
        + f" after {used} of {len(held)} held-out deals, LLR {llr:+.2f}; a fixed-size test at "
        f"the same error rates needs {fixed} deals",
        soft_wrap=True,
    )
    return decide(played, job.retrain.confidence, sequential)


def _champion(client: MlflowClient, job: RetrainConfig) -> Champion:
    """Step 1: the chromosome, description and version the alias points at (refused when
    there is none, or when it plays another table size)."""
    name, alias = job.registry.model_name, job.registry.champion_alias
    try:
        champion, info, version = load_registered(client, name, alias)
    except MlflowException as exc:
        raise UsageError(
            f"no model {name!r} with alias {alias!r} in the registry: run pipelines/evolve.py first"
        ) from exc
    if int(info.get("table_size", job.table_size)) != job.table_size:
        raise UsageError(
            f"the champion plays {info['table_size']} seats; table_size={job.table_size}"
        )
    return champion, info, version


def _promote(
    session: Session,
    job: RetrainConfig,
    challenger: np.ndarray,
    info: dict[str, Any],
    fitness: float | None,
    retrain_id: str,
    version: str,
) -> str:
    """Step 4: log the challenger as the run's champion, register it, move the alias to it;
    returns the new version."""
    mlrun = session.run
    described = {
        **info,
        "fitness": fitness,
        "retrain_id": retrain_id,
        "previous_version": version,
        **({"challenger": job.retrain.challenger} if job.retrain.challenger else {}),
    }
    mlrun.outbox.close()  # what the run kept is recorded before the registry points at it
    log_champion(mlrun.client, mlrun.run_id, challenger, described)
    # the one place that replaces a champion: after the challenger won the test
    return register(
        mlrun.client, job.registry.model_name, mlrun.run_id, job.registry.champion_alias
    )


def _named_challenger(job: RetrainConfig) -> np.ndarray:
    """Step 2 with ``retrain.challenger``: the chromosome that spec names (a registered
    version or alias, or a baseline), instead of an evolved one."""
    spec = parse(str(job.retrain.challenger), "retrain.challenger")
    if spec.kind == "champion":
        named = resolve_champion(
            job.tracking.uri, job.registry.model_name, spec, "retrain.challenger"
        )
        if named["table_size"] not in (None, job.table_size):
            raise UsageError(
                f"retrain.challenger: {spec.text} (v{named['version']}) plays "
                f"{named['table_size']} seats; table_size={job.table_size}"
            )
        genes = np.asarray(named["genes"], dtype=np.int8)
    else:
        genes = baseline(spec.text.removeprefix("poker@"))
    console.print(f"challenger: {spec.text} (not evolved)")
    return genes


def _evolve_challenger(
    job: RetrainConfig, session: Session, champion: np.ndarray, retrain_id: str, experiment: str
) -> dict[str, Any]:
    """Step 2: the nested evolve run on fresh training deals, seeded from the champion."""
    # Fresh training deals for this id; the held-out set stays fixed (the yardstick).
    train_seed = int(config_hash({"retrain": retrain_id}, 8), 16) % 1_000_000 + 1000
    if train_seed == job.deals.heldout_seed:
        train_seed += 1
    evolve_cfg = replace(
        job,
        deals=replace(job.deals, train_seed=train_seed),
        registry=replace(job.registry, register=False),
        resume=True,  # a rerun after a crash continues the same evolution
        checkpoint_root=str(session.locate(job.retrain.checkpoint_root) / retrain_id),
        # the challenger's evolution is part of this retrain: nested here, not in `evolve`
        tracking=replace(job.tracking, parent_run_id=session.run_id, experiment=experiment),
    )
    return evolve.run(
        evolve_cfg,
        seed_individual=champion,
        seed_fraction=job.retrain.seed_fraction,
        tags={"retrain_id": retrain_id},
        run_name=f"retrain {retrain_id} challenger",
        role="challenger",
    )


def _league_rating(
    job: RetrainConfig, session: Session, version: str, held: DealSet, deal_hash: str
) -> dict[str, float]:
    """The champion's (after the decision) rating in the league of every version and the
    baselines, logged as ``league_rating`` (the pair cache makes this the new pairs only)."""
    client = session.run.client
    league = rate_league(client, job, job.league, held, deal_hash)
    if job.league.tag_versions:
        tag_versions(client, job.registry.model_name, league, session.run_id)
    found = league.rating_of(f"v{version}")
    if found is None:
        return {}
    rating, low, high = found
    metrics = {"league_rating": rating, "league_rating_low": low, "league_rating_high": high}
    session.log_metrics(metrics)
    # the deal-win rating (how often it wins a deal), not the league's rank by chips
    console.print(
        f"champion v{version}: league deal-win rating {rating:+.0f} "
        f"[{low:+.0f}, {high:+.0f}] (95%) among {len(league.entrants)} entrants"
    )
    return metrics


def _print_decision(
    session: Session,
    retrain_id: str,
    version: str,
    new_version: str | None,
    promotion: Promotion,
) -> None:
    p = promotion
    bound = f"{p.confidence:.0%}"  # each bound one-sided: the rule reads the lower one
    session.table(
        f"Retrain {retrain_id}: challenger vs champion v{version}",
        ["edge bb/100", f"{bound} lower bound", f"{bound} upper bound", "deals", "decision"],
        [
            [
                f"{p.mean:+.2f}",
                f"{p.low:+.2f}",
                f"{p.high:+.2f}",
                p.deals,
                p.decision
                + (f" (v{new_version})" if new_version else "")
                + (f", SPRT {p.sequential.verdict}" if p.sequential else ""),
            ]
        ],
    )
