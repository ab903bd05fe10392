"""The champion in the MLflow model registry: the chromosome file is the contract.

A version's artifacts are ``chromosome.npy`` ((540, 2) int8, ``np.load(allow_pickle=False)``)
and ``champion.json`` (table size, preflop factors, fitness, benchmark). The alias (default
``champion``) names the version retraining starts from and must beat to be replaced.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import mlflow
import numpy as np
from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient


def log_champion(
    client: MlflowClient, run_id: str, chromosome: np.ndarray, info: dict[str, Any]
) -> str:
    """Log the chromosome and its description as artifacts under ``champion/``."""
    with tempfile.TemporaryDirectory() as tmp:
        np.save(Path(tmp) / "chromosome.npy", chromosome.astype(np.int8))
        (Path(tmp) / "champion.json").write_text(json.dumps(info, indent=2, default=float))
        client.log_artifacts(run_id, tmp, "champion")
    return f"runs:/{run_id}/champion"


def register(client: MlflowClient, name: str, run_id: str, alias: str | None) -> str:
    """Register ``runs:/<run>/champion`` as a new version of ``name``; point ``alias`` at it."""
    try:
        client.create_registered_model(name)
    except MlflowException as exc:
        if "already exists" not in str(exc).lower() and "RESOURCE_ALREADY_EXISTS" not in str(exc):
            raise
    version = client.create_model_version(name, f"runs:/{run_id}/champion", run_id=run_id)
    if alias:
        client.set_registered_model_alias(name, alias, version.version)
    return str(version.version)


def load_champion(client: MlflowClient, artifact_uri: str) -> tuple[np.ndarray, dict[str, Any]]:
    """(chromosome, info) from a ``champion/`` artifact directory (``runs:/<id>/champion`` or a
    version's source)."""
    with tempfile.TemporaryDirectory() as tmp:
        local = mlflow.artifacts.download_artifacts(
            artifact_uri=artifact_uri, dst_path=tmp, tracking_uri=client.tracking_uri
        )
        chromosome = np.load(Path(local) / "chromosome.npy", allow_pickle=False)
        info = json.loads((Path(local) / "champion.json").read_text())
    return chromosome, info


def load_registered(
    client: MlflowClient, name: str, alias: str = "champion"
) -> tuple[np.ndarray, dict[str, Any], str]:
    """(chromosome, info, version) of the version ``alias`` points at."""
    version = client.get_model_version_by_alias(name, alias)
    chromosome, info = load_champion(client, str(version.source))
    return chromosome, info, str(version.version)
