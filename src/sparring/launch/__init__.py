"""Launching work: the Hydra entry of every pipeline script (``app.launch``), job submission to
a Ray cluster (``submit``), Hydra multirun sweeps under a parent run (``sweep``), the cluster
launcher config (``cluster_config``), the checks run before anything starts (``preflight``) and
the MLflow UI screenshot tool (``screenshots``).

Layer: above ``pipelines``, ``tuning`` and ``config``; below ``cli``. Nothing below imports it.
"""
