"""Pipeline bodies: each ``run(cfg)`` validates its config, fans out on Ray, writes Parquet and
records an MLflow run. The Hydra entry points in ``pipelines/`` are thin wrappers around these."""
