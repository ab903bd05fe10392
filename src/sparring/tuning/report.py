"""The end of a search, as a person and the record see it: the trial table, the best config
written as an override file, the objective per trial and the parameter importances, logged to
the parent run and printed, and the parent closed (FINISHED, or FAILED when no trial finished).

The pieces are ``summary``'s; this module records and prints them.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from rich.markup import escape

from sparring.config.tune import TuneConfig
from sparring.reporting.console import console, print_table
from sparring.runtime.checkout import conf_dir
from sparring.runtime.ray.session import job_page
from sparring.runtime.redact import redact_url
from sparring.runtime.tracking.runs import RunLogger
from sparring.tuning import summary, target
from sparring.tuning.space import short_name
from sparring.tuning.trial import short_value


def finish(
    client, parent, exp, job: TuneConfig, records, search_id, objective, maximize
) -> dict[str, Any]:
    """Summary table, best config file, plots, importances, metrics; the parent is closed.

    Returns the parent run id, the search id, the best trial (None when no trial finished)
    and its config file, every trial's record, the importances and the parent's ``metrics``."""
    search = job.hparams_search
    logger = RunLogger(client, parent, exp)
    top = summary.best(records, maximize)
    keys = list(search.space)
    rows = [
        [
            r.number,
            r.state,
            summary.fmt(r.objective),
            r.step,
            *[short_value(r.params.get(k)) for k in keys],
        ]
        for r in records
    ]
    text = print_table(
        f"Search {search_id}: {objective} per trial",
        ["trial", "ended", "objective", "step", *[short_name(k, keys) for k in keys]],
        rows,
    )
    logger.log_text(text, "trials.txt")
    counts = {s: sum(1 for r in records if r.state == s) for s in ("finished", "stopped", "failed")}
    metrics: dict[str, float] = {f"trials_{s}": n for s, n in counts.items()}
    for r in records:
        if r.objective is not None:
            logger.log_metrics({"trial_objective": r.objective}, step=r.number)
    best_path = None
    if top is not None:
        metrics["best_objective"] = float(top.objective or 0.0)
        metrics["best_trial"] = top.number
        best_dir = Path(job.best_dir) if job.best_dir else Path(conf_dir()) / "best"
        best_path = summary.write_best(
            best_dir / f"{search_id}.yaml", target.best_keys(search), top, search_id, objective
        )
        logger.log_artifact(best_path)
        logger.set_tags({"best_trial": top.number, "best_config": str(best_path)})
    scores = summary.importances(records, search.space, maximize)
    metrics.update({f"importance/{k}": v for k, v in scores.items()})
    logger.log_metrics(metrics)
    with tempfile.TemporaryDirectory() as tmp:
        logger.log_artifact(
            summary.objective_plot(Path(tmp) / "objective.png", records, objective, maximize)
        )
        if scores:
            logger.log_artifact(summary.importance_plot(Path(tmp) / "importance.png", scores))
            logger.log_text(json.dumps(scores, indent=2), "importance.json")
    # A search none of whose trials finished found nothing: FAILED, and the command exits 1.
    logger.end("FINISHED" if top is not None else "FAILED")  # after every kept record
    if top is None:
        failed = [r for r in records if r.state == "failed"]
        console.print(
            f"no trial finished ({len(failed)} of {len(records)} failed): no best config; "
            f"each trial's error is in its directory under {job.storage}/{search_id}"
        )
    else:
        console.print(
            f"[bold]best:[/bold] trial {top.number}, {objective} {summary.fmt(top.objective)}"
        )
        for key, value in top.params.items():
            console.print(f"  {key}={short_value(value)}")
        rerun = f"python pipelines/{search.pipeline}.py +best={search_id}"
        if job.best_dir:
            rerun += f" 'hydra.searchpath=[file://{Path(job.best_dir).resolve().parent}]'"
        console.print(f"[bold]best config:[/bold] {best_path}")
        console.print(f"  rerun: {escape(rerun)}", soft_wrap=True)
    if scores:
        console.print(
            "importance: "
            + ", ".join(f"{k} {v:.2f}" for k, v in sorted(scores.items(), key=lambda kv: -kv[1]))
        )
    console.print(f"[bold]MLflow parent run:[/bold] {parent} in {redact_url(job.tracking.uri)}")
    if page := job_page():  # a search submitted as a Ray job: its page on the dashboard
        console.print(f"[bold]Ray job:[/bold] {page}", soft_wrap=True)
    return {
        "run_id": parent,
        "search_id": search_id,
        "best": top,
        "best_config": best_path,
        "trials": records,
        "importance": scores,
        "metrics": metrics,
    }


__all__ = ["finish"]
