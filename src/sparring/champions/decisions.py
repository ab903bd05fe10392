"""The record of retraining decisions in MLflow: which ids are decided, and how.

A retrain run (tag ``pipeline=retrain``, in the ``retrain`` experiment unless configured
otherwise) that finished has decided when its ``decision`` tag is ``promoted`` or ``kept``; its
metrics hold the edge (``edge_bb100``, ``edge_low``, ``edge_high``) and its tags the versions
(``champion_version``, ``new_version``). ``decisions`` finds them (the history, and a rerun of a
decided id), ``result_of`` reads one back as the retrain pipeline returns it, and
``exit_status`` / ``payload`` say how a result ends the process and what its webhook carries
(``refusal`` and ``failure``: the webhook of a retrain refused before any run, or failed).
"""

from __future__ import annotations

from typing import Any

from mlflow.entities import Run
from mlflow.tracking import MlflowClient

from sparring.runtime.errors import EXIT_USAGE, UsageError
from sparring.runtime.explain import one_line

__all__ = [
    "DECISIONS",
    "EXIT_STATUS",
    "EXPERIMENT",
    "decisions",
    "exit_status",
    "failure",
    "payload",
    "refusal",
    "result_of",
]

EXPERIMENT = "retrain"
# a kept champion is a decision, not a failure: a scheduled job (cron, a Ray job) succeeded; what
# it decided is in the record (``sparring retrain history``) and the webhook
EXIT_STATUS = {"promoted": 0, "kept": 0, "failed": 1, "refused": EXIT_USAGE}
DECISIONS = ("promoted", "kept")


def exit_status(result: dict[str, Any]) -> int:
    """The process exit status for a retrain's result: 0, promoted or kept."""
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
    """A decided retrain run as the retrain pipeline's ``run`` returns it."""
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


def payload(result: dict[str, Any]) -> dict[str, Any]:
    """What the webhook says of a decided retrain (beside its id, model and run)."""
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


def refusal(exc: UsageError) -> dict[str, Any]:
    """What the webhook says of a retrain refused before any work: no run was created."""
    return {
        "decision": "refused",
        "exit_status": EXIT_STATUS["refused"],
        "reason": one_line(exc),
        "run_id": None,
    }


def failure(exc: BaseException) -> dict[str, Any]:
    """What the webhook says of a retrain whose run failed: the error in one line and the exit
    status the launcher gives it (2 for an expected failure printed in one line, else 1)."""
    line = one_line(exc)
    return {
        "decision": "failed",
        "exit_status": EXIT_USAGE if line is not None else EXIT_STATUS["failed"],
        "error": line or repr(exc),
    }
