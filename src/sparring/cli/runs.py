"""``sparring compare``, ``sparring results`` and ``sparring retrain history``: reading the
MLflow record."""

from __future__ import annotations

import argparse

from sparring.cli.common import (
    UsageError,
    integer,
    name,
    output_file,
    readable_store,
    tracking_uri,
)
from sparring.runtime.config import DEFAULT_TRACKING_URI


def register(top: argparse._SubParsersAction, groups: dict) -> None:
    cmp_ = top.add_parser(
        "compare",
        help="compare MLflow runs: an experiment's, a sweep's or a model's versions",
        description=(
            "Rank runs by a metric, best first (the pipeline's objective in its own direction: "
            "equity's mean_stderr smallest first; any other metric descending unless --order "
            "asc); one line per run, fitted to the terminal "
            "(COLUMNS): a short id and name, the params that differ between them (swept params "
            "first, marked *; ray.*, tracking.*, storage.* and paths only with --all-params), "
            "the chosen metrics to 4 significant digits; a sweep's runs together. Writes a bar "
            "plot. The runs are an experiment's, a sweep's (--sweep) or those behind a "
            "registered model's versions (--model)."
        ),
        epilog=(
            "examples:\n"
            "  sparring compare evolve --metric champion_bb100\n"
            "  sparring compare --sweep evolve-ga_operators-20261129-180000 \\\n"
            "      --metric champion_bb100\n"
            "  sparring compare --model sparring-holdem-champion --metric champion_bb100\n"
            "  sparring compare evolve --metric champion_bb100 --format csv > runs.csv\n"
            "  sparring compare equity --metric trials_per_s --filter \"params.trials = '4000'\""
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cmp_.add_argument(
        "experiment", nargs="?", help="MLflow experiment (evolve, equity, ...), or --sweep/--model"
    )
    cmp_.add_argument("--metric", required=True, help="rank by this metric, best first")
    cmp_.add_argument(
        "--order",
        choices=["auto", "desc", "asc"],
        default="auto",
        help="best first by: the objective's direction when --metric is the pipeline's "
        "objective, else descending (auto, the default); desc; asc",
    )
    cmp_.add_argument("--metrics", nargs="*", default=[], help="more metrics to show")
    cmp_.add_argument("--filter", default="", help="MLflow filter, e.g. \"params.seed = '1'\"")
    cmp_.add_argument("--sweep", help="a sweep or search id: compare its runs")
    cmp_.add_argument("--model", help="a registered model: compare the runs behind its versions")
    cmp_.add_argument("--max-runs", type=integer(1), default=20, help="runs shown (default 20)")
    cmp_.add_argument(
        "--format",
        choices=["table", "csv", "json", "markdown"],
        default="table",
        help="table (default: fits the terminal) or, for scripts, csv, json, markdown",
    )
    cmp_.add_argument(
        "--all-params",
        action="store_true",
        help="also show differing ray.*, tracking.*, storage.* and path params",
    )
    cmp_.add_argument("--tracking-uri", type=tracking_uri, default=DEFAULT_TRACKING_URI)
    cmp_.add_argument(
        "--output-dir", default="data/compare", help="where the plot goes (data/compare)"
    )
    cmp_.set_defaults(func=compare)

    res = top.add_parser(
        "results",
        help="the latest run of every pipeline with its headline numbers, and the champions",
        description=(
            "One line per pipeline: its latest finished top-level MLflow run (never a nested "
            "child or a sweep parent) and its headlines; then every registered model's aliases."
        ),
    )
    res.add_argument("--tracking-uri", type=tracking_uri, default=DEFAULT_TRACKING_URI)
    res.set_defaults(func=results)

    retrain = top.add_parser(
        "retrain",
        help="the record of scheduled retraining",
        description="The record of scheduled retraining (pipelines/retrain.py).",
    )
    tools = retrain.add_subparsers(dest="retrain_command", metavar="TOOL")
    tools.required = True
    history = tools.add_parser(
        "history",
        help="every retrain decision by date, with its edge and interval",
        description=(
            "Every decided retrain (promoted or kept), newest first: the id, the challenger's "
            "edge over the champion in bb/100 with its confidence interval, the versions."
        ),
    )
    history.add_argument("--model", type=name, help="only this registered model's retrains")
    history.add_argument(
        "--experiment", type=name, default="retrain", help="MLflow experiment (retrain)"
    )
    history.add_argument("--tracking-uri", type=tracking_uri, default=DEFAULT_TRACKING_URI)
    history.set_defaults(func=retrain_history)


def compare(args: argparse.Namespace) -> int:
    """Print the comparison table and write its plot."""
    if args.experiment and (args.sweep or args.model):
        raise UsageError("name an experiment or --sweep/--model, not both")
    try:  # refuse an unwritable place before reading
        output_file(f"{args.output_dir}/plot.png")
    except argparse.ArgumentTypeError as exc:
        raise UsageError(f"--output-dir {exc}") from None
    if not (args.sweep or args.model):
        readable_store(args.tracking_uri, args.experiment, (args.metric, *args.metrics))
    from sparring.reporting.compare import compare as compare_runs  # MLflow: after the checks

    compare_runs(
        args.tracking_uri,
        args.experiment,
        args.metric,
        args.metrics,
        args.filter,
        args.max_runs,
        args.output_dir,
        sweep=args.sweep,
        model=args.model,
        output_format=args.format,
        all_params=args.all_params,
        order=args.order,
    )
    return 0


def results(args: argparse.Namespace) -> int:
    """Print the latest run of every pipeline."""
    readable_store(args.tracking_uri)  # reading must not create an empty store
    from sparring.cli.results import results as latest

    latest(args.tracking_uri)
    return 0


def retrain_history(args: argparse.Namespace) -> int:
    """Print the retrain decisions."""
    readable_store(args.tracking_uri)
    from sparring.cli.results import retrain_history as history

    history(args.tracking_uri, args.experiment, args.model)
    return 0
