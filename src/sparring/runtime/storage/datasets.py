"""Parquet datasets with a contract: a declared schema plus file metadata.

Every file carries ``sparring.dataset``, ``sparring.schema_version``, ``sparring.config_hash``
and ``sparring.seed`` in its Parquet key-value metadata. A file may live on the local disk or an
object store (``runtime/storage``); every write is atomic per object (a temporary name renamed
into place, or one upload), so a crash never leaves a partial file that looks whole. Readers
check the dataset name, version and columns and fail with a message that says what differs.

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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from sparring.runtime.errors import UsageError
from sparring.runtime.storage.location import Location, locate

_PREFIX = "sparring."


REGENERATE = "run the pipeline that wrote it again with the same config: it recomputes it"


class DatasetError(UsageError, ValueError):
    """A dataset file is missing, of another kind or version, damaged, or does not match its
    schema (one line: the file, what is wrong and how to regenerate it)."""


Where = str | os.PathLike[str] | Location


def sidecar(path: Where) -> Location:
    """Where the SHA-256 of ``path``'s bytes is kept."""
    path = locate(path)
    return path.with_name(f"{path.name}.sha256")


def file_digest(path: Where) -> str:
    return hashlib.sha256(locate(path).read_bytes()).hexdigest()


def _recorded_digest(path: Location, at_its_place: bool = False) -> str | None:
    """The SHA-256 recorded next to ``path`` ("" when the sidecar is empty), None when none.
    With ``at_its_place`` (a cache entry or an output found where a run put it), a digest that
    names another file is no digest: an intact copy of another file, put under this name, is
    not this file. A file a person names (a table copied under a new name with its digest) is
    checked by its bytes alone."""
    try:
        text = sidecar(path).read_text().strip()
    except FileNotFoundError:
        return None
    digest, _, name = text.partition(" ")  # "<hex>  <name>", as sha256sum writes it
    name = name.strip().lstrip("*")  # (sha256sum's binary-mode mark)
    if at_its_place and name and name != path.name:
        return ""  # the digest of another file: this one cannot be trusted
    return digest


def _check_digest(path: Location, data: bytes, recorded: str, regenerate: str) -> None:
    if not recorded:
        raise DatasetError(
            f"{path}: its digest ({sidecar(path).name}) is empty or names another file (a copy "
            f"of another file?); {regenerate}"
        )
    if hashlib.sha256(data).hexdigest() != recorded:
        raise DatasetError(
            f"{path}: damaged (its bytes no longer match {sidecar(path).name}); {regenerate}"
        )


def verify(path: Where, regenerate: str = REGENERATE) -> bool:
    """Whether ``path``'s bytes match its recorded SHA-256 (False when none is recorded);
    raises ``DatasetError`` (naming the file and ``regenerate``) when they do not."""
    path = locate(path)
    recorded = _recorded_digest(path)
    if recorded is None:
        return False
    _check_digest(path, _fetch(path), recorded, regenerate)
    return True


def _fetch(path: Location) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise DatasetError(f"{path}: no such dataset file") from None


def write_with_digest(path: Where, data: bytes) -> Location:
    """Write ``data`` to ``path`` with its SHA-256 beside it (``<name>.sha256``), each object
    atomically and the digest first: a file under its final name always has one. When the file
    cannot be written (a full disk, say) the digest is put back as it was: no digest of nothing
    is left behind, and a file that was there before keeps its own."""
    path = locate(path)
    digest = sidecar(path)
    try:
        before: str | None = digest.read_text()  # a file there already keeps its own proof
    except FileNotFoundError:
        before = None
    digest.write_text(f"{hashlib.sha256(data).hexdigest()}  {path.name}\n")
    try:
        path.write_bytes(data)
    except BaseException:
        _put_back(digest, before)
        raise
    return path


def _put_back(digest: Location, before: str | None) -> None:
    """The digest file as it was before a write that failed (none, when it cannot be put back:
    never the digest of a file that was not written)."""
    if before is not None:
        try:
            digest.write_text(before)
            return
        except OSError:
            pass  # (on a full disk, even this small file may not fit)
    digest.delete()


def read_verified(path: Where) -> bytes | None:
    """The bytes of ``path`` if they match the digest beside it; None when the file or its
    digest is missing or they differ (a cache then computes the entry again)."""
    path = locate(path)
    recorded = _recorded_digest(path, at_its_place=True)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    if recorded is None or hashlib.sha256(data).hexdigest() != recorded:
        return None
    return data


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
    path: Where,
    spec: DatasetSpec,
    *,
    config_hash: str,
    seed: int | None,
    extra: dict[str, Any] | None = None,
) -> Location:
    """Write ``table`` to ``path`` (a local path or storage URI) with ``spec``'s schema and
    metadata. Each object is written atomically, the digest before the file: a file under its
    final name always has one."""
    path = locate(path)
    try:
        table = table.select(spec.schema.names).cast(spec.schema)
    except (KeyError, pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise DatasetError(f"{spec.name}: table does not fit the declared schema: {exc}") from exc
    table = table.replace_schema_metadata(spec.metadata(config_hash, seed, extra))
    buffer = pa.BufferOutputStream()
    pq.write_table(table, buffer, write_page_checksum=True)
    return write_with_digest(path, buffer.getvalue().to_pybytes())


def _metadata(path: Location, data: bytes) -> dict[str, str]:
    try:
        raw = pq.read_schema(pa.BufferReader(data)).metadata or {}
    except (pa.ArrowInvalid, OSError) as exc:
        raise DatasetError(f"{path}: not a readable Parquet file ({exc})") from exc
    return {
        k.decode()[len(_PREFIX) :]: v.decode() for k, v in raw.items() if k.startswith(b"sparring.")
    }


def read_metadata(path: Where) -> dict[str, str]:
    """The ``sparring.*`` metadata of a Parquet file (without the prefix)."""
    path = locate(path)
    return _metadata(path, _fetch(path))


def check_file(path: Where, spec: DatasetSpec) -> dict[str, str]:
    """Validate a file's dataset name, schema version and columns; return its metadata."""
    path = locate(path)
    return _check(path, _fetch(path), spec)


def _check(path: Location, data: bytes, spec: DatasetSpec) -> dict[str, str]:
    meta = _metadata(path, data)
    if meta.get("dataset") != spec.name:
        raise DatasetError(
            f"{path}: expected a {spec.name!r} dataset, found {meta.get('dataset')!r}"
        )
    if meta.get("schema_version") != str(spec.version):
        raise DatasetError(
            f"{path}: {spec.name} schema version {meta.get('schema_version')} but this code reads "
            f"version {spec.version}; regenerate the dataset"
        )
    schema = pq.read_schema(pa.BufferReader(data))
    for field in spec.schema:
        if field.name not in schema.names:
            raise DatasetError(f"{path}: column {field.name!r} is missing")
        found = schema.field(field.name).type
        if not found.equals(field.type):
            raise DatasetError(
                f"{path}: column {field.name!r} has type {found}, expected {field.type}"
            )
    return meta


def read_table(path: Where, spec: DatasetSpec, regenerate: str = REGENERATE) -> pa.Table:
    """Read a dataset file after checking it against ``spec``, its bytes against their SHA-256
    and every page against its checksum; ``regenerate`` says how to remake a damaged file.
    The file is fetched once: the bytes checked are the bytes read."""
    path = locate(path)
    data = _fetch(path)
    recorded = _recorded_digest(path)
    if recorded is not None:
        _check_digest(path, data, recorded, regenerate)
    _check(path, data, spec)
    try:
        table = pq.read_table(
            pa.BufferReader(data),
            schema=spec.schema.with_metadata(None),
            page_checksum_verification=True,
        )
    except (OSError, pa.ArrowException) as exc:
        reason = str(exc).splitlines()[0][:120]
        raise DatasetError(f"{path}: damaged ({reason}); {regenerate}") from None
    return table.select(spec.schema.names)


def is_reusable(
    path: Where,
    spec: DatasetSpec,
    config_hash: str,
    report: Callable[[str], object] | None = print,
    identity: dict[str, Any] | None = None,
) -> bool:
    """True when ``path`` is an intact ``spec`` file written from the same config (its bytes
    match their recorded SHA-256) and, with ``identity``, whose metadata names it so (e.g.
    ``{"shard": 3}``: an intact copy of another shard under this name is not this shard). A
    damaged or misplaced one is reported in one line and not reused."""
    path = locate(path)
    recorded = _recorded_digest(path, at_its_place=True)
    if recorded is None:
        return False  # no digest recorded (or nothing at all): cannot be trusted, recompute
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return False
    try:
        _check_digest(path, data, recorded, REGENERATE)
    except DatasetError:
        if report is not None:
            report(f"{path} is damaged (its bytes changed since it was written): recomputing it")
        return False
    try:
        meta = _check(path, data, spec)
    except DatasetError:
        return False
    if meta.get("config_hash") != config_hash:
        return False
    wrong = misplaced(meta, identity or {})
    if wrong and report is not None:
        report(f"{path} holds {wrong}: recomputing it")
    return not wrong


def misplaced(meta: dict[str, str], identity: dict[str, Any]) -> str:
    """What a file's metadata says it is where ``identity`` (its place) says otherwise, as
    ``shard 0, not shard 1``; empty when it is what its place says."""
    for key, want in identity.items():
        expected = want if isinstance(want, str) else json.dumps(want)
        if meta.get(key) != expected:
            return f"{key} {meta.get(key, '(none)')}, not {key} {expected}"
    return ""
