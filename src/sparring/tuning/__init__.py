"""Hyperparameter search over any pipeline: Ray Tune with Optuna (TPE), random or grid search,
ASHA early stopping, every trial an MLflow child run (``pipelines/tune.py``).

One job a module: the target pipeline (``target``), the space (``space``), one trial
(``trial``), the Tuner built and fit (``tuner``), the search's stored state (``state``) and its
resume (``resume``), the search's MLflow runs (``runs``), the numbers of its end (``summary``)
and their record and print-out (``report``). The ``tune`` body strings them together.
"""
