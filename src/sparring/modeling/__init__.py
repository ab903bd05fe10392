"""The interpretable opponent model (specs/player_model.md). So far: ``Rate``."""
