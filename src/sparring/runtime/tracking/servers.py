"""How Sparring starts an MLflow server (``mlflow server``, ``mlflow ui``): without its job runner.

MLflow 3's server starts, beside the web server, a job runner with seven ``huey`` consumer
processes for its GenAI jobs (judges, trace roll-ups), which Sparring never submits. Each
imports all of MLflow: measured on the 2-core machine, a server cost ~25 CPU-seconds more in the
20 s after it answered (10 processes instead of 2, ~1.6 GB more memory) and kept polling after.
``MLFLOW_SERVER_ENABLE_JOB_EXECUTION=false`` (MLflow's own switch) leaves them out; a caller
that set the variable keeps its value.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

WITHOUT_JOBS = {"MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"}


def server_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` with MLflow's job runner turned off unless ``environ`` says otherwise."""
    return {**WITHOUT_JOBS, **environ}


def server_argv(
    port: int,
    backend_store_uri: str,
    artifacts: Path | None = None,
    *,
    command: str = "server",
) -> list[str]:
    """``mlflow <command>`` (``server`` or ``ui``) of this environment on 127.0.0.1:``port``
    with one web worker (four, MLflow's default, cost a minute of start-up on 2 cores and serve
    Sparring's few clients no better), over ``backend_store_uri``; ``artifacts`` served from
    that directory when given. Start it with ``server_environment``."""
    argv = [str(Path(sys.executable).parent / "mlflow"), command, "--workers", "1"]
    argv += ["--host", "127.0.0.1", "--port", str(port), "--backend-store-uri", backend_store_uri]
    if artifacts is not None:
        argv += ["--artifacts-destination", str(artifacts)]
    return argv
