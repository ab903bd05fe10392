"""The ``handgen`` pipeline: deal sets as Parquet shards, one Ray task per shard.

A killed run leaves only whole shards; a rerun with the same config computes only the missing
ones (see ``sparring.frame.deal_set_store``).
"""

from __future__ import annotations

from typing import Any

from sparring.config.handgen import HandgenConfig
from sparring.frame.deal_set_store import ensure_deal_set, log_deal_set
from sparring.frame.session import pipeline_session
from sparring.reporting.console import console


def run(config: HandgenConfig) -> dict[str, Any]:
    """Run the pipeline; returns the deal-set directory, the MLflow run id and the metrics
    (``deals_per_s``, ``flop_filter_rejection_rate``, ``shards_reused``, ...)."""
    settings = config.deal_set
    with pipeline_session(config, "handgen", tags={"data_hash": settings.data_hash}) as session:
        table = config.preflop.table
        directory, stats = ensure_deal_set(
            settings,
            session.locate(config.output_root),
            None if table is None else session.locate(table),
            cores=session.cores,
        )
        session.output("deal set", directory)
        log_deal_set(session.run, "deals", settings, directory, settings.deals, "output")
        stats["cpus"] = float(session.cores)
        session.log_metrics(stats)
        if stats["shards_reused"] == stats["shards"]:
            console.print(f"reusing the complete deal set in {directory}")
        rows = [[k, f"{v:,.3f}" if isinstance(v, float) else f"{v:,}"] for k, v in stats.items()]
        session.table("handgen", ["metric", "value"], rows, artifact="summary.txt")
    return session.results(stats, output=directory)
