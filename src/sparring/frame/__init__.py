"""The frame every pipeline body runs in (``session.pipeline_session``: storage, Ray, the
MLflow run, signals, datasets, the closing summary) and deal sets on disk
(``deal_set_store``: generated as Ray tasks, reused, loaded, recorded as MLflow inputs).

Layer: above ``runtime``, ``reporting``, ``config`` and the domains; below the pipeline bodies.
"""
