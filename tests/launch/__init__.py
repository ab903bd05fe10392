"""The launcher: Hydra entry, sweep presets, cluster config."""
