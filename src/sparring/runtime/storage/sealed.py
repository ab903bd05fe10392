"""Text files that prove themselves complete: the last line is the SHA-256 of all above it.

A file written atomically is never half-written by us, but it can still be cut short or damaged
later (a copy, a disk, an editor). ``seal`` ends a text with ``# sparring-sealed sha256=<hex>``
of everything before that line; ``unseal`` gives the text back only when the line is there and
matches, else one ``UsageError`` line naming the file and what is wrong. The marker is a YAML
comment, so a sealed YAML file still reads as YAML.
"""

from __future__ import annotations

import hashlib

from sparring.runtime.errors import UsageError

MARK = "# sparring-sealed sha256="


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def seal(text: str) -> str:
    """``text`` (ending in a newline) followed by the line that proves it complete."""
    body = text if text.endswith("\n") else text + "\n"
    return f"{body}{MARK}{_digest(body)}\n"


def unseal(data: bytes, what: str, remedy: str) -> str:
    """The text above the seal of ``data`` (the bytes of ``what``, e.g. its path); a
    ``UsageError`` ending in ``remedy`` when it is not text, has no seal or does not match it."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{what} is not a text file (damaged?); {remedy}") from None
    body, _, last = text.rstrip("\n").rpartition("\n")
    body += "\n"
    if not last.startswith(MARK):
        raise UsageError(f"{what} has no digest line at its end (cut short?); {remedy}")
    if last[len(MARK) :].strip() != _digest(body):
        raise UsageError(f"{what} does not match its digest (changed or damaged); {remedy}")
    return body
