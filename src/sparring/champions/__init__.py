"""The champion's life cycle around the GA: the MLflow model registry (versions, aliases, the
champion's chromosome as an artifact), the league that rates every version (its entrants, the
pair cache, the version tags), the claim that lets one retraining per id run at a time, the
record of retraining decisions, and the webhook that reports a decision.

Layer: above ``runtime``, ``reporting``, ``config`` and ``ga``; used by the ``evolve``,
``retrain`` and ``league`` pipeline bodies and by the CLI.
"""
