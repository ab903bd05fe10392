"""A store's secret key, and what it keys: seals no program can forge, chance no entrant sees.

The arena keeps one key beside its store (``<output_dir>/.key``: 32 random bytes, made on first
use, readable by the user only). Outside programs never see it: they run in the sandbox
(``runtime.programs.jail``), which shows them none of the store. With it:

- ``seal(key, body)`` / ``sealed_by(key, body, seal)``: an HMAC-SHA256 of a finished block, so
  a block written by anyone without the key (an entrant rewriting its results) is refused on
  resume and played again;
- ``derive(key, *parts)``: a secret of its own for each purpose (a contest's, a unit's chance,
  a seat's start-message seed), so nothing an entrant receives determines chance the game hides
  from it, while the same key and seed still give the same contest for any number of workers.
  To replay a contest's deals on another machine, copy the key with the store.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets

from sparring.runtime.storage.location import Location

KEY_FILE = ".key"
KEY_BYTES = 32


def store_key(root: Location) -> bytes:
    """The key of the store at ``root``: read, or made now (mode 0600; two processes making it
    at once agree on the first one written). A key file of the wrong size is one line."""
    where = root / KEY_FILE
    if root.is_local:
        path = where.local_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        fresh = secrets.token_bytes(KEY_BYTES)
        with contextlib.suppress(FileExistsError):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                os.write(fd, fresh)
                os.fsync(fd)
            finally:
                os.close(fd)
    elif not where.exists():
        where.write_bytes(secrets.token_bytes(KEY_BYTES))
    key = where.read_bytes()
    if len(key) != KEY_BYTES:
        # a key cut short while being made (its writer died): nothing was sealed with it yet
        raise ValueError(
            f"{where.display()}: a key of {len(key)} bytes, expected {KEY_BYTES}; "
            "remove it to make a new one (the blocks sealed with it are then played again)"
        )
    return key


def derive(key: bytes, *parts: object) -> bytes:
    """A secret for one purpose: HMAC-SHA256 of ``parts`` (joined by ``|``) under ``key``."""
    return hmac.new(key, "|".join(str(p) for p in parts).encode(), hashlib.sha256).digest()


def derive_seed(key: bytes, *parts: object, bits: int = 31) -> int:
    """A seed of ``bits`` bits derived from ``key`` and ``parts`` (``derive``)."""
    return int.from_bytes(derive(key, *parts)[:8], "big") % (1 << bits)


def seal(key: bytes, body: bytes) -> str:
    """The HMAC-SHA256 of ``body`` under ``key``, in hex."""
    return hmac.new(key, body, hashlib.sha256).hexdigest()


def sealed_by(key: bytes, body: bytes, mark: str) -> bool:
    """Whether ``mark`` is ``body``'s seal under ``key`` (compared in constant time)."""
    return hmac.compare_digest(seal(key, body), str(mark))
