"""The champion's life cycle around the GA: the MLflow model registry (versions, aliases, the
champion's chromosome as an artifact), the claim that lets one retraining per id run at a
time, and the webhook that reports a retraining decision.

Layer: above ``runtime``, ``config`` and ``ga``; used by the ``evolve``, ``retrain`` and
``league`` pipeline bodies and by the CLI.
"""
