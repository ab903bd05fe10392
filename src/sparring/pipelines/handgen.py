"""The ``handgen`` pipeline: deal sets as Parquet shards, one Ray task per shard.

A killed run leaves only whole shards; a rerun with the same config computes only the missing
ones (see ``sparring.services.dealsets``).
"""

from __future__ import annotations

from typing import Any

from sparring.config.handgen import HandgenConfig
from sparring.reporting.console import console, print_locations, print_table
from sparring.runtime import storage
from sparring.runtime.ray_session import init_ray
from sparring.runtime.tracking import tracked_run
from sparring.services.dealsets import ensure_deal_set, log_deal_set


def run(config: HandgenConfig) -> dict[str, Any]:
    """Run the pipeline; returns the deal-set directory, the MLflow run id and the metrics
    (``deals_per_s``, ``flop_filter_rejection_rate``, ``shards_reused``, ...)."""
    storage.configure(config.storage)
    settings = config.deal_set
    resources = init_ray(config.ray)
    with tracked_run(config, "handgen", tags={"data_hash": settings.data_hash}) as mlrun:
        directory, stats = ensure_deal_set(settings, config.output_root)
        log_deal_set(mlrun, "deals", settings, directory, settings.deals, "output")
        stats["cpus"] = float(resources.get("CPU", 1))
        mlrun.log_metrics(stats)
        if stats["shards_reused"] == stats["shards"]:
            console.print(f"reusing the complete deal set in {directory}")
        rows = [[k, f"{v:,.3f}" if isinstance(v, float) else f"{v:,}"] for k, v in stats.items()]
        mlrun.log_text(print_table("handgen", ["metric", "value"], rows), "summary.txt")
    print_locations({"deal set": directory}, config.tracking.uri, mlrun.run_id)
    return {"output": directory, "run_id": mlrun.run_id, "metrics": stats}
