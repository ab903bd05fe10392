"""The champion in the MLflow model registry: the chromosome file is the contract.

A version's artifacts are ``chromosome.npy`` ((540, 2) int8, ``np.load(allow_pickle=False)``)
and ``champion.json`` (table size, preflop factors, fitness, benchmark). The alias (default
``champion``) names the version retraining starts from and must beat to be replaced: only the
first registration sets it unasked (``if_free``); after that retraining's guarded promotion
moves it, or a registration that names it explicitly.
"""

from __future__ import annotations

import hashlib
import io
import json
import tempfile
from pathlib import Path
from typing import Any

import mlflow
import numpy as np
from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient

from sparring.poker.catalog import N_GENES
from sparring.poker.rules import DEFAULT_CALL_FACTOR, DEFAULT_RAISE_FACTOR
from sparring.runtime.errors import ConfigError
from sparring.runtime.redact import redact_url
from sparring.runtime.storage.datasets import DatasetError, verify, write_with_digest


def log_champion(
    client: MlflowClient, run_id: str, chromosome: np.ndarray, info: dict[str, Any]
) -> str:
    """Log the chromosome and its description as artifacts under ``champion/``."""
    with tempfile.TemporaryDirectory() as tmp:
        genes = io.BytesIO()
        np.save(genes, chromosome.astype(np.int8))
        write_with_digest(Path(tmp) / "chromosome.npy", genes.getvalue())  # + .sha256
        (Path(tmp) / "champion.json").write_text(json.dumps(info, indent=2, default=float))
        client.log_artifacts(run_id, tmp, "champion")
    return f"runs:/{run_id}/champion"


def register(
    client: MlflowClient, name: str, run_id: str, alias: str | None, *, if_free: bool = False
) -> str:
    """Register ``runs:/<run>/champion`` as a new version of ``name``; point ``alias`` at it
    (with ``if_free``, only when no version holds ``alias`` yet: the first champion). Returns
    the new version.

    ``if_free`` reads, then sets: two registrations racing for a free alias both set it and the
    later wins (MLflow has no compare-and-set of an alias); each is still a version."""
    try:
        client.create_registered_model(name)
    except MlflowException as exc:
        if "already exists" not in str(exc).lower() and "RESOURCE_ALREADY_EXISTS" not in str(exc):
            raise
    version = client.create_model_version(name, f"runs:/{run_id}/champion", run_id=run_id)
    if alias and not (if_free and alias_holder(client, name, alias) is not None):
        client.set_registered_model_alias(name, alias, version.version)
    return str(version.version)


def alias_holder(client: MlflowClient, name: str, alias: str) -> str | None:
    """The version of ``name`` that ``alias`` points at, or None (no such alias or model)."""
    try:
        return str(client.get_model_version_by_alias(name, alias).version)
    except MlflowException as exc:
        # only "not there" means free: an unreachable store must not read as a free alias
        if exc.error_code in _ABSENT:
            return None
        raise


_ABSENT = ("RESOURCE_DOES_NOT_EXIST", "INVALID_PARAMETER_VALUE")  # no model; no such alias


def load_champion(client: MlflowClient, artifact_uri: str) -> tuple[np.ndarray, dict[str, Any]]:
    """(chromosome, info) from a ``champion/`` artifact directory (``runs:/<id>/champion`` or a
    version's source). The chromosome proves itself: its bytes against the digest beside it
    (versions logged before digests were kept have none) and its shape and type; anything
    else is a ``DatasetError`` naming the artifact, never a champion played silently wrong."""
    with tempfile.TemporaryDirectory() as tmp:
        local = mlflow.artifacts.download_artifacts(
            artifact_uri=artifact_uri, dst_path=tmp, tracking_uri=client.tracking_uri
        )
        where = Path(local) / "chromosome.npy"
        remedy = f"the champion at {artifact_uri} cannot be used; register a champion anew"
        verify(where, remedy)  # raises when its bytes do not match their digest
        try:
            chromosome = np.load(where, allow_pickle=False)
        except (OSError, ValueError, EOFError) as exc:
            raise DatasetError(
                f"{artifact_uri}/chromosome.npy: unreadable ({exc}); {remedy}"
            ) from None
        if chromosome.shape != (N_GENES, 2) or chromosome.dtype != np.int8:
            raise DatasetError(
                f"{artifact_uri}/chromosome.npy: {chromosome.dtype}{list(chromosome.shape)}, "
                f"not a chromosome (int8[{N_GENES}, 2]); {remedy}"
            )
        try:
            info = json.loads((Path(local) / "champion.json").read_text())
        except (OSError, ValueError) as exc:
            raise DatasetError(
                f"{artifact_uri}/champion.json: unreadable ({exc}); {remedy}"
            ) from None
    return chromosome, info


def load_registered(
    client: MlflowClient, name: str, alias: str = "champion"
) -> tuple[np.ndarray, dict[str, Any], str]:
    """(chromosome, info, version) of the version ``alias`` points at."""
    version = client.get_model_version_by_alias(name, alias)
    chromosome, info = load_champion(client, str(version.source))
    return chromosome, info, str(version.version)


def resolve_champion(uri: str, model_name: str, spec: Any, key: str) -> dict[str, Any]:
    """What a ``champion@<alias|version>`` agent spec (``arena.agents.AgentSpec``) plays by,
    read from the registry at ``uri``: ``genes``, the preflop factors, ``version``,
    ``digest`` (of the genes and factors, not the version's number) and the ``table_size``
    it was evolved for (None when its description does not say). A version or alias that
    is not there is one ``ConfigError`` on ``key``, listing what is."""
    client = MlflowClient(uri)
    try:
        if spec.alias:
            version = client.get_model_version_by_alias(model_name, spec.alias)
        else:
            version = client.get_model_version(model_name, spec.version)
    except MlflowException:
        raise ConfigError(
            key,
            spec.text,
            f"a version or alias of {model_name} in {redact_url(uri)} "
            f"({_registered(client, model_name)})",
        ) from None
    genes, info = load_champion(client, str(version.source))
    factors = {
        "raise_factor": float(info.get("raise_factor", DEFAULT_RAISE_FACTOR)),
        "call_factor": float(info.get("call_factor", DEFAULT_CALL_FACTOR)),
    }
    played = genes.astype(np.int8).tobytes() + json.dumps(factors, sort_keys=True).encode()
    return {
        "genes": genes.astype(int).tolist(),
        **factors,
        "version": str(version.version),
        "digest": hashlib.sha256(played).hexdigest()[:16],
        "table_size": int(info["table_size"]) if "table_size" in info else None,
    }


def _registered(client: MlflowClient, model: str) -> str:
    """What ``model`` has: its versions and aliases, or that it has none."""
    try:
        found = client.get_registered_model(model)
    except MlflowException as exc:
        if exc.error_code != "RESOURCE_DOES_NOT_EXIST":
            return f"the registry did not answer: {str(exc).splitlines()[0][:120]}"
        return "no such model: register a champion with pipelines/evolve.py"
    versions = [v.version for v in client.search_model_versions(f"name='{model}'")]
    aliases = ", ".join(sorted(found.aliases)) or "none"
    return f"versions {', '.join(map(str, sorted(map(int, versions))))}; aliases {aliases}"
