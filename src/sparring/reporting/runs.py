"""Queries of the record for summaries: which runs someone started, and the newest of them."""

from __future__ import annotations

from mlflow.entities import Run
from mlflow.tracking import MlflowClient

from sparring.runtime.tracking.parent_runs import PARENT_TAG


def is_top_level(run: Run) -> bool:
    """A run someone started: not nested under another (a retrain's evolve, a sweep's job) and
    not a sweep's parent (which has no results of its own)."""
    tags = run.data.tags
    return "mlflow.parentRunId" not in tags and tags.get(PARENT_TAG) != "true"


def latest_top_level(client: MlflowClient, experiment_id: str) -> Run | None:
    """The newest finished top-level run of an experiment."""
    token = None
    while True:
        page = client.search_runs(
            [experiment_id],
            "attributes.status = 'FINISHED'",
            order_by=["attributes.start_time DESC"],
            max_results=100,
            page_token=token,
        )
        for run in page:
            if is_top_level(run):
                return run
        token = page.token
        if not token:
            return None
