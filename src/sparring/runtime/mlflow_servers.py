"""How Sparring starts an MLflow server (``mlflow server``, ``mlflow ui``): without its job runner.

MLflow 3's server starts, beside the web server, a job runner with seven ``huey`` consumer
processes for its GenAI jobs (judges, trace roll-ups), which Sparring never submits. Each
imports all of MLflow: measured on the 2-core machine, a server cost ~25 CPU-seconds more in the
20 s after it answered (10 processes instead of 2, ~1.6 GB more memory) and kept polling after.
``MLFLOW_SERVER_ENABLE_JOB_EXECUTION=false`` (MLflow's own switch) leaves them out; a caller
that set the variable keeps its value.
"""

from __future__ import annotations

from collections.abc import Mapping

WITHOUT_JOBS = {"MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"}


def server_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` with MLflow's job runner turned off unless ``environ`` says otherwise."""
    return {**WITHOUT_JOBS, **environ}
