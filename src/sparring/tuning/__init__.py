"""Hyperparameter search over any pipeline: Ray Tune with Optuna (TPE), random or grid search,
ASHA early stopping, every trial an MLflow child run (``pipelines/tune.py``)."""
