"""Parquet datasets with a contract: a declared schema plus file metadata.

Every file carries ``sparring.dataset``, ``sparring.schema_version``, ``sparring.config_hash``
and ``sparring.seed`` in its Parquet key-value metadata. Writes go to a temporary name in the
same directory and are renamed into place when complete, so a crash never leaves a partial file
that looks whole. Readers check the dataset name, version and columns and fail with a message
that says what differs.

Data cannot lie: pages are written with checksums and verified on every read, and each file has
a sidecar ``<file>.sha256`` with the SHA-256 of its bytes, written before the file takes its
final name. A damaged file (a flipped bit anywhere) is never reused: ``is_reusable`` says so in
one line and the pipeline recomputes it; reading it raises a ``DatasetError`` that names the file
and how to regenerate it.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from sparring.runtime.errors import UsageError

_PREFIX = "sparring."


REGENERATE = "run the pipeline that wrote it again with the same config: it recomputes it"


class DatasetError(UsageError, ValueError):
    """A dataset file is missing, of another kind or version, damaged, or does not match its
    schema (one line: the file, what is wrong and how to regenerate it)."""


def sidecar(path: str | os.PathLike[str]) -> Path:
    """Where the SHA-256 of ``path``'s bytes is kept."""
    path = Path(path)
    return path.with_name(f"{path.name}.sha256")


def file_digest(path: str | os.PathLike[str]) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def verify(path: str | os.PathLike[str], regenerate: str = REGENERATE) -> bool:
    """Whether ``path``'s bytes match its recorded SHA-256 (False when none is recorded);
    raises ``DatasetError`` (naming the file and ``regenerate``) when they do not."""
    recorded = sidecar(path)
    if not recorded.exists():
        return False
    words = recorded.read_text().split()
    if file_digest(path) != (words[0] if words else ""):
        raise DatasetError(
            f"{path}: damaged (its bytes no longer match {recorded.name}); {regenerate}"
        )
    return True


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
    digest_tmp = tmp.with_name(tmp.name + ".sha256")
    try:
        pq.write_table(table, tmp, write_page_checksum=True)
        # the digest is in place before the file: a file under its final name always has one
        digest_tmp.write_text(f"{file_digest(tmp)}  {path.name}\n")
        os.replace(digest_tmp, sidecar(path))
        os.replace(tmp, path)
    finally:
        for leftover in (tmp, digest_tmp):
            if leftover.exists():
                leftover.unlink()
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


def read_table(
    path: str | os.PathLike[str], spec: DatasetSpec, regenerate: str = REGENERATE
) -> pa.Table:
    """Read a dataset file after checking it against ``spec``, its bytes against their SHA-256
    and every page against its checksum; ``regenerate`` says how to remake a damaged file."""
    verify(path, regenerate)
    check_file(path, spec)
    try:
        table = pq.read_table(
            path, schema=spec.schema.with_metadata(None), page_checksum_verification=True
        )
    except (OSError, pa.ArrowException) as exc:
        reason = str(exc).splitlines()[0][:120]
        raise DatasetError(f"{path}: damaged ({reason}); {regenerate}") from None
    return table.select(spec.schema.names)


def is_reusable(
    path: str | os.PathLike[str],
    spec: DatasetSpec,
    config_hash: str,
    report: Callable[[str], object] | None = print,
) -> bool:
    """True when ``path`` is an intact ``spec`` file written from the same config (its bytes
    match their recorded SHA-256). A damaged one is reported in one line and not reused."""
    if not Path(path).exists():
        return False
    try:
        if not verify(path):
            return False  # no digest recorded: cannot be trusted, recompute
    except DatasetError:
        if report is not None:
            report(f"{path} is damaged (its bytes changed since it was written): recomputing it")
        return False
    try:
        meta = check_file(path, spec)
    except DatasetError:
        return False
    return meta.get("config_hash") == config_hash
