"""The interpretable opponent model (specs/player_model.md): rates, metrics in context,
the back-off PlayerModel and its SQLite store. Drift, calibration and the judge are to come."""
