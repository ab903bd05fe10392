"""Parent runs: one MLflow run above the runs of a sweep or search, and the tags that tie them.

A sweep (``launch.sweep``) or a search (the ``tune`` pipeline) creates the parent with
``create_parent`` and exports its id in ``PARENT_ENV``; ``tracking.tracked_run`` nests each
job's run under it and tags it with the same ``sweep_id``.
"""

from __future__ import annotations

import json
from typing import Any

PARENT_ENV = "SPARRING_SWEEP_PARENT_RUN"
SWEPT_TAG = "sweep_params"  # on the parent: JSON {param: its values}
SWEEP_ENV = "SPARRING_SWEEP_ID"
SWEEP_ID_TAG = "sweep_id"  # on the parent and every child: the sweep's (or search's) id
PARENT_TAG = "sweep_parent"  # "true" on the parent run of a sweep or search


def create_parent(
    client: Any,
    experiment: str,
    sweep_id: str,
    pipeline: str,
    swept: dict,
    source: str | None = None,
    **tags: str,
) -> str:
    """The parent run of a sweep or search over ``pipeline``: named and tagged with its id,
    the swept keys (``swept``: key -> their values) and the standard source tags of the script
    that drives it (``source``, default the pipeline's own); returns its id."""
    from sparring.runtime.tracking.runs import git_commit, source_tags

    commit = git_commit()
    run = client.create_run(
        experiment,
        run_name=sweep_id,
        tags={
            SWEEP_ID_TAG: sweep_id,
            "pipeline": pipeline,
            PARENT_TAG: "true",
            "git_commit": commit,
            **source_tags(source or pipeline, commit),
            SWEPT_TAG: json.dumps(swept),
            **tags,
        },
    )
    return str(run.info.run_id)
