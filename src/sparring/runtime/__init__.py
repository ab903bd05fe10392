"""Where kernels meet the outside world: Ray, MLflow, Parquet, seeds and configs."""
