"""Where data lives: a local path or an object-store URI, behind one small API.

Every root a pipeline reads or writes (``deals.root``, ``checkpoint_root``, ``output``, ...)
accepts a local path, ``file://...``, ``s3://bucket/prefix`` or ``gs://bucket/prefix``.
``locate`` turns it into a ``Location``: a pyarrow filesystem plus a path on it. A Location
pickles (filesystem options included, credentials not), so a Ray task on another node writes
to the same place as the driver.

Writes are atomic per object. On a local disk a file is written under a temporary name and
renamed; on an object store the whole object is uploaded in one request, and a store never
shows a partial object. Readers therefore see either nothing or a whole file, everywhere.

Credentials come from the standard environment of each process (``AWS_ACCESS_KEY_ID``,
``AWS_SECRET_ACCESS_KEY``, instance roles, ``GOOGLE_APPLICATION_CREDENTIALS``, ...). The S3
endpoint (for S3-compatible stores such as MinIO) comes from the config's ``storage.endpoint``,
else ``AWS_ENDPOINT_URL_S3`` / ``AWS_ENDPOINT_URL``, else AWS itself.
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import os
import posixpath
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.fs as pafs

from sparring.runtime.errors import UsageError

SCHEMES = ("file", "s3", "gs")
ALLOWED = "a local path, file://, s3://bucket/prefix or gs://bucket/prefix"
ENDPOINT_ENV = ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")


class StorageError(UsageError, OSError):
    """A storage location that cannot be used (one line: where and why)."""


@dataclass(frozen=True)
class StorageOptions:
    """How object stores are reached (``storage:`` in a pipeline's config)."""

    endpoint: str | None = None  # e.g. http://127.0.0.1:9000; null = environment, else AWS
    region: str | None = None  # null = the environment's (AWS_REGION), else us-east-1


def scheme_of(uri: str | os.PathLike[str]) -> str:
    """``""`` for a local path, else the URI's scheme (lower case)."""
    text = os.fspath(uri)
    head, sep, _ = text.partition("://")
    return head.lower() if sep and "/" not in head else ""


def is_remote(uri: str | os.PathLike[str] | Location) -> bool:
    """Whether ``uri`` names an object store (not the local disk)."""
    if isinstance(uri, Location):
        return not uri.is_local
    return scheme_of(uri) not in ("", "file")


def check_uri(uri: str) -> None:
    """Refuse an unknown scheme or an object-store URI without a bucket, naming what works."""
    scheme = scheme_of(uri)
    if scheme and scheme not in SCHEMES:
        raise StorageError(f"{uri}: unknown storage scheme {scheme!r}; use {ALLOWED}")
    if scheme in ("s3", "gs") and not uri.split("://", 1)[1].strip("/"):
        raise StorageError(f"{uri}: no bucket named; use {ALLOWED}")


def _s3(options: StorageOptions) -> pafs.FileSystem:
    endpoint = options.endpoint or next(
        (os.environ[name] for name in ENDPOINT_ENV if os.environ.get(name)), None
    )
    kwargs: dict[str, Any] = {
        "region": options.region or os.environ.get("AWS_REGION") or "us-east-1"
    }
    if endpoint:
        scheme, sep, host = endpoint.partition("://")
        kwargs["endpoint_override"] = host.rstrip("/") if sep else endpoint
        kwargs["scheme"] = scheme if sep else "https"
    return pafs.S3FileSystem(**kwargs)


def locate(
    where: str | os.PathLike[str] | Location, options: StorageOptions | None = None
) -> Location:
    """The Location of a local path or storage URI (see the module's docstring). ``options``
    say how object stores are reached (default: the process's environment); a Location
    already carries its own and is returned as it is."""
    if isinstance(where, Location):
        return where
    text = os.fspath(where)
    check_uri(text)
    scheme = scheme_of(text)
    if scheme in ("", "file"):
        local = text.split("://", 1)[1] if scheme else text
        return Location(pafs.LocalFileSystem(), str(Path(local)), "")
    path = text.split("://", 1)[1].strip("/")
    if scheme == "s3":
        return Location(_s3(options or StorageOptions()), path, scheme)
    fs, path = pafs.FileSystem.from_uri(text)
    return Location(fs, path.strip("/"), scheme)


@dataclass(frozen=True)
class Location:
    """A file or directory on a filesystem: ``fs`` and ``path`` (``bucket/key`` on a store)."""

    fs: pafs.FileSystem
    path: str
    scheme: str  # "" = the local disk

    def __hash__(self) -> int:
        # pyarrow filesystems do not hash; equal Locations (same fs options) share this hash
        return hash((self.scheme, self.path))

    # -- naming -------------------------------------------------------------------------
    def __str__(self) -> str:
        return f"{self.scheme}://{self.path}" if self.scheme else self.path

    def __truediv__(self, name: str) -> Location:
        return self.joinpath(name)

    def joinpath(self, *names: str) -> Location:
        join = posixpath.join if self.scheme else os.path.join
        return Location(self.fs, join(self.path, *names), self.scheme)

    @property
    def is_local(self) -> bool:
        return not self.scheme

    @property
    def name(self) -> str:
        return posixpath.basename(self.path.rstrip("/"))

    @property
    def parent(self) -> Location:
        return Location(self.fs, posixpath.dirname(self.path.rstrip("/")), self.scheme)

    def with_name(self, name: str) -> Location:
        return self.parent / name

    def absolute(self) -> Location:
        """The same location with a local path made absolute (a task may run elsewhere)."""
        if self.scheme:
            return self
        return Location(self.fs, os.path.abspath(self.path), self.scheme)

    def local_path(self) -> Path:
        """The local path (only for a Location on the local disk)."""
        if self.scheme:
            raise StorageError(f"{self}: not on the local disk")
        return Path(self.path)

    def display(self) -> str:
        """What to show a user: an absolute path, or the URI."""
        return str(self.absolute())

    # -- queries ------------------------------------------------------------------------
    def _info(self) -> pafs.FileInfo:
        try:
            return self.fs.get_file_info(self.path)
        except OSError as exc:
            raise StorageError(f"{self}: cannot be reached ({_first_line(exc)})") from None

    def exists(self) -> bool:
        return self._info().type != pafs.FileType.NotFound

    def is_file(self) -> bool:
        return self._info().type == pafs.FileType.File

    def is_dir(self) -> bool:
        return self._info().type == pafs.FileType.Directory

    def check_writable(self) -> None:
        """Raise a one-line ``StorageError`` (this root, why, what to do) unless files can be
        written under this directory as far as can be seen without writing one: on a store,
        the store answers and the bucket exists (a store creates no bucket on a write); on the
        local disk, the nearest existing directory on the way to it is writable. Called once
        per output root before any task runs: a task would fail each shard on the same cause."""
        if self.scheme:
            bucket = Location(self.fs, self.path.split("/", 1)[0], self.scheme)
            if bucket._info().type == pafs.FileType.NotFound:
                raise StorageError(
                    f"{self}: the bucket {bucket.path!r} does not exist at this store; create "
                    "it, or name an existing bucket (check storage.endpoint)"
                )
            return
        here = Path(self.path).absolute()
        while not here.exists() and here != here.parent:
            here = here.parent
        if not here.is_dir():
            raise StorageError(f"{self.display()}: {here} is a file, not a directory")
        if not os.access(here, os.W_OK | os.X_OK):
            raise StorageError(
                f"{self.display()}: the directory {here} is not writable; choose a root "
                "this user may write"
            )

    def _entries(self, kind: pafs.FileType) -> list[str]:
        """The names of the entries of type ``kind`` directly in this directory, sorted."""
        selector = pafs.FileSelector(self.path, allow_not_found=True, recursive=False)
        try:
            infos = self.fs.get_file_info(selector)
        except OSError as exc:
            raise StorageError(f"{self}: cannot be listed ({_first_line(exc)})") from None
        return sorted(info.base_name for info in infos if info.type == kind)

    def glob(self, pattern: str) -> list[Location]:
        """The files directly in this directory whose names match ``pattern``, sorted by name
        (temporary files of unfinished writes start with a dot and never match)."""
        if not self.is_dir():
            return []
        names = self._entries(pafs.FileType.File)
        return [self / name for name in names if fnmatch.fnmatchcase(name, pattern)]

    def subdirs(self) -> list[Location]:
        """The directories directly in this one, sorted by name."""
        return [self / name for name in self._entries(pafs.FileType.Directory)]

    # -- bytes --------------------------------------------------------------------------
    def read_bytes(self) -> bytes:
        try:
            with self.fs.open_input_stream(self.path) as stream:
                return stream.read()
        except FileNotFoundError:
            raise
        except OSError as exc:
            if not self.exists():
                raise FileNotFoundError(f"{self}: no such file") from None
            raise StorageError(f"{self}: cannot be read ({_first_line(exc)})") from None

    def read_text(self) -> str:
        return self.read_bytes().decode()

    def write_bytes(self, data: bytes) -> None:
        """Write ``data`` atomically: a reader sees the old object or the whole new one."""
        if self.scheme:
            try:
                # one upload; the store shows the object only once it is complete
                with self.fs.open_output_stream(self.path) as stream:
                    stream.write(data)
            except OSError as exc:
                raise StorageError(f"{self}: cannot be written ({_first_line(exc)})") from None
            return
        target = Path(self.path)
        tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}.tmp")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, target)
        except OSError as exc:
            if exc.errno in FULL:
                raise no_space(target, len(data)) from None
            raise
        finally:
            tmp.unlink(missing_ok=True)

    def write_text(self, text: str) -> None:
        self.write_bytes(text.encode())

    def delete(self) -> None:
        """Remove this file (nothing happens when it is already gone)."""
        with contextlib.suppress(FileNotFoundError):
            self.fs.delete_file(self.path)

    def download(self, directory: str | os.PathLike[str]) -> Path:
        """This file as a local path: itself when local, else a copy in ``directory``."""
        if not self.scheme:
            return Path(self.path)
        copy = Path(directory) / self.name
        copy.write_bytes(self.read_bytes())
        return copy


FULL = (errno.ENOSPC, errno.EDQUOT)  # a write that more space (or quota) would let through


def no_space(path: str | os.PathLike[str], needed: int | None = None) -> StorageError:
    """The one-line error for a write to ``path`` that its disk has no room for: the path, the
    space needed and the space free, and what to do."""
    here = Path(path).absolute()
    while not here.exists() and here != here.parent:
        here = here.parent
    try:
        free = f"{_size(shutil.disk_usage(here).free)} free"
    except OSError:
        free = "free space unknown"
    wanted = f"{_size(needed)} needed, " if needed is not None else ""
    return StorageError(
        f"{path}: no space left on the device ({wanted}{free} on {here}); free some space "
        "or choose another root, then run the same command again (what was written is kept)"
    )


def _size(n: float) -> str:
    """``n`` bytes for a person: ``812 B``, ``114.9 KiB``, ``3.2 GiB``."""
    units = ["B", "KiB", "MiB", "GiB", "TiB"]
    while n >= 1024 and len(units) > 1:
        n /= 1024
        units.pop(0)
    return f"{n:.0f} B" if units[0] == "B" else f"{n:.1f} {units[0]}"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__
