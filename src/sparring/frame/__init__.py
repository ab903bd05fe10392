"""Services shared by the pipeline bodies: the pipeline frame (``frame.pipeline_session``: storage,
Ray, the MLflow run, signals, datasets, the closing summary) and deal sets (``dealsets``:
generated as Ray tasks, reused, loaded, recorded as MLflow inputs).

Layer: above ``runtime``, ``reporting``, ``config`` and the domains; below the pipeline bodies.
"""
