"""Parquet datasets with a contract: a declared schema plus file metadata.

Every file carries ``sparring.dataset``, ``sparring.schema_version``, ``sparring.config_hash``
and ``sparring.seed`` in its Parquet key-value metadata. Writes go to a temporary name in the
same directory and are renamed into place when complete, so a crash never leaves a partial file
that looks whole. Readers check the dataset name, version and columns and fail with a message
that says what differs.
"""

from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

_PREFIX = "sparring."


class DatasetError(ValueError):
    """A dataset file is missing, of another kind or version, or does not match its schema."""


@dataclass(frozen=True)
class DatasetSpec:
    """What a dataset is: its name, schema version and Arrow schema."""

    name: str
    version: int
    schema: pa.Schema

    def metadata(self, config_hash: str, seed: int | None, extra: dict[str, Any] | None = None):
        meta = {
            "dataset": self.name,
            "schema_version": str(self.version),
            "config_hash": config_hash,
            "seed": "" if seed is None else str(seed),
        }
        for key, value in (extra or {}).items():
            meta[key] = value if isinstance(value, str) else json.dumps(value)
        return {f"{_PREFIX}{k}".encode(): v.encode() for k, v in meta.items()}


def write_table(
    table: pa.Table,
    path: str | os.PathLike[str],
    spec: DatasetSpec,
    *,
    config_hash: str,
    seed: int | None,
    extra: dict[str, Any] | None = None,
) -> Path:
    """Write ``table`` to ``path`` atomically with ``spec``'s schema and metadata."""
    path = Path(path)
    try:
        table = table.select(spec.schema.names).cast(spec.schema)
    except (KeyError, pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise DatasetError(f"{spec.name}: table does not fit the declared schema: {exc}") from exc
    table = table.replace_schema_metadata(spec.metadata(config_hash, seed, extra))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        pq.write_table(table, tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path


def read_metadata(path: str | os.PathLike[str]) -> dict[str, str]:
    """The ``sparring.*`` metadata of a Parquet file (without the prefix)."""
    path = Path(path)
    if not path.exists():
        raise DatasetError(f"{path}: no such dataset file")
    try:
        raw = pq.read_schema(path).metadata or {}
    except (pa.ArrowInvalid, OSError) as exc:
        raise DatasetError(f"{path}: not a readable Parquet file ({exc})") from exc
    return {
        k.decode()[len(_PREFIX) :]: v.decode() for k, v in raw.items() if k.startswith(b"sparring.")
    }


def check_file(path: str | os.PathLike[str], spec: DatasetSpec) -> dict[str, str]:
    """Validate a file's dataset name, schema version and columns; return its metadata."""
    meta = read_metadata(path)
    if meta.get("dataset") != spec.name:
        raise DatasetError(
            f"{path}: expected a {spec.name!r} dataset, found {meta.get('dataset')!r}"
        )
    if meta.get("schema_version") != str(spec.version):
        raise DatasetError(
            f"{path}: {spec.name} schema version {meta.get('schema_version')} but this code reads "
            f"version {spec.version}; regenerate the dataset"
        )
    schema = pq.read_schema(path)
    for field in spec.schema:
        if field.name not in schema.names:
            raise DatasetError(f"{path}: column {field.name!r} is missing")
        found = schema.field(field.name).type
        if not found.equals(field.type):
            raise DatasetError(
                f"{path}: column {field.name!r} has type {found}, expected {field.type}"
            )
    return meta


def read_table(path: str | os.PathLike[str], spec: DatasetSpec) -> pa.Table:
    """Read a dataset file after checking it against ``spec``."""
    check_file(path, spec)
    return pq.read_table(path, schema=spec.schema.with_metadata(None)).select(spec.schema.names)


def is_reusable(path: str | os.PathLike[str], spec: DatasetSpec, config_hash: str) -> bool:
    """True when ``path`` is a valid ``spec`` file written from the same config."""
    try:
        meta = check_file(path, spec)
    except DatasetError:
        return False
    return meta.get("config_hash") == config_hash
