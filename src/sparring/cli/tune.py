"""``sparring tune``: a hyperparameter search (``pipelines/tune.py``) from the command line.

Everything after ``tune`` is Hydra's:
``sparring tune hparams_search=ga_tpe trials=24 concurrency=2``, ``sparring tune --help``,
``sparring tune --cfg job``.
"""

from __future__ import annotations

from sparring.cli.hydra_pipeline import HydraCommand

COMMAND = HydraCommand(
    "tune",
    "a hyperparameter search over a pipeline: Ray Tune + Optuna TPE + ASHA, every trial an "
    "MLflow child run (pipelines/tune.py; Hydra overrides follow, e.g. hparams_search=ga_tpe "
    "trials=24)",
    "sparring.pipelines.tune:run",
)
register, script, run = COMMAND.register, COMMAND.script, COMMAND.run
