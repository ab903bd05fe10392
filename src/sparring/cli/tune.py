"""``sparring tune``: a hyperparameter search (``pipelines/tune.py``) from the command line.

Everything after ``tune`` is Hydra's:
``sparring tune hparams_search=ga_tpe trials=24 concurrency=2``, ``sparring tune --help``,
``sparring tune --cfg job``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sparring.runtime.checkout import pipeline_script
from sparring.runtime.errors import UsageError

HELP = (
    "a hyperparameter search over a pipeline: Ray Tune + Optuna TPE + ASHA, every trial an "
    "MLflow child run (pipelines/tune.py; Hydra overrides follow, e.g. hparams_search=ga_tpe "
    "trials=24)"
)


def register(top: argparse._SubParsersAction, groups: dict) -> None:
    tune = top.add_parser("tune", help=HELP, description=HELP, add_help=False)
    tune.add_argument("overrides", nargs=argparse.REMAINDER, help="Hydra overrides")
    tune.set_defaults(func=run)


def script() -> Path:
    """``pipelines/tune.py`` of the checkout the package runs from (its ``conf/`` is beside)."""
    path = pipeline_script("tune")
    if not path.exists():
        raise UsageError(
            f"sparring tune runs from a checkout: {path} is missing (install with `uv sync` "
            "in the repository, or run python pipelines/tune.py there)"
        )
    return path


def run(args: argparse.Namespace) -> int:
    """Hand the overrides to the Hydra app; exits with its status."""
    from sparring.launch.app import launch
    path = script()
    sys.argv = [str(path), *args.overrides]
    launch(
        str(path),
        "tune",
        "sparring.pipelines.tune:run",
        exit_status="sparring.pipelines.tune:exit_status",
    )
    return 0
