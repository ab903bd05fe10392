"""Range checks for ``__post_init__`` of the config schemas.

Hydra already refuses unknown keys and wrong types; these check what a type cannot say (ranges,
non-empty lists, finite numbers) and raise ``ConfigError`` naming the field, the value and what is
allowed. Keys are the field's own name; the schema that holds it adds its prefix. The pure range
checks live in ``sparring.runtime.checks`` (the kernels use them too); the storage checks here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sparring.runtime.checks import (
    choice,
    integer,
    integers,
    name,
    number,
    optional_integer,
    path_text,
    probability,
)
from sparring.runtime.errors import ConfigError

__all__ = [
    "choice",
    "integer",
    "integers",
    "local_dir",
    "name",
    "number",
    "optional_integer",
    "path_text",
    "probability",
    "storage_dir",
    "storage_file",
]


def _storage(key: str, value: Any) -> Path | None:
    """Check a path or storage URI; the local path it names (None on an object store)."""
    from sparring.runtime.storage.location import ALLOWED, StorageError, check_uri, scheme_of

    path_text(key, value)
    try:
        check_uri(value)
    except StorageError:
        raise ConfigError(key, value, ALLOWED) from None
    return Path(value.split("://", 1)[-1]) if scheme_of(value) in ("", "file") else None


def storage_dir(key: str, value: Any) -> str:
    """A directory for data: a local path (not an existing file) or a storage URI."""
    local = _storage(key, value)
    if local is not None and local.is_file():
        raise ConfigError(key, value, "a directory, not a file")
    return value


def local_dir(key: str, value: Any) -> str:
    """A directory on this machine (not a storage URI, not an existing file): for what only a
    local path can hold."""
    path_text(key, value)
    if "://" in value:
        raise ConfigError(key, value, "a local directory (this one cannot be in object storage)")
    if Path(value).is_file():
        raise ConfigError(key, value, "a directory, not a file")
    return value


def storage_file(key: str, value: Any) -> str:
    """A data file's place: a local path (not an existing directory) or a storage URI."""
    local = _storage(key, value)
    if local is not None and local.is_dir():
        raise ConfigError(key, value, "a file, not a directory")
    return value
