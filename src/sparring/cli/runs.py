"""``sparring compare`` and ``sparring results``: reading the MLflow record."""

from __future__ import annotations

import argparse

from sparring.cli.common import UsageError, integer, output_file, tracking_uri
from sparring.runtime.config import DEFAULT_TRACKING_URI


def register(top: argparse._SubParsersAction, groups: dict) -> None:
    cmp_ = top.add_parser(
        "compare",
        help="compare the runs of an MLflow experiment",
        description="Rank an experiment's runs by a metric; show the params that differ.",
    )
    cmp_.add_argument("experiment", help="MLflow experiment (e.g. evolve, equity)")
    cmp_.add_argument("--metric", required=True, help="rank by this metric (descending)")
    cmp_.add_argument("--metrics", nargs="*", default=[], help="more metrics to show")
    cmp_.add_argument("--filter", default="", help="MLflow filter, e.g. \"params.seed = '1'\"")
    cmp_.add_argument("--max-runs", type=integer(1), default=20, help="runs shown (default 20)")
    cmp_.add_argument("--tracking-uri", type=tracking_uri, default=DEFAULT_TRACKING_URI)
    cmp_.add_argument(
        "--output-dir", default="data/compare", help="where the plot goes (data/compare)"
    )
    cmp_.set_defaults(func=compare)

    res = top.add_parser(
        "results",
        help="the latest run of every pipeline with its headline numbers",
        description="One line per pipeline: its latest finished MLflow run and headlines.",
    )
    res.add_argument("--tracking-uri", type=tracking_uri, default=DEFAULT_TRACKING_URI)
    res.set_defaults(func=results)


def compare(args: argparse.Namespace) -> int:
    """Print the comparison table and write its plot."""
    from sparring.pipelines.compare import compare as compare_runs

    try:  # refuse an unwritable place before reading
        output_file(f"{args.output_dir}/plot.png")
    except argparse.ArgumentTypeError as exc:
        raise UsageError(f"--output-dir {exc}") from None
    compare_runs(
        args.tracking_uri,
        args.experiment,
        args.metric,
        args.metrics,
        args.filter,
        args.max_runs,
        args.output_dir,
    )
    return 0


def results(args: argparse.Namespace) -> int:
    """Print the latest run of every pipeline."""
    from sparring.pipelines.results import results as latest

    latest(args.tracking_uri)
    return 0
