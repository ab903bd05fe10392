"""Secrets never recorded: URLs lose their user, password and query before they are printed,
logged as a param or tag, or written into a run's ``config.yaml``.

A webhook token, an S3 endpoint with credentials or a tracking URI with a password reads
``http://***@host/path?***``. Secrets are better kept out of configs altogether: the webhook
URL may come from ``SPARRING_NOTIFY_URL`` and AWS keys come from the standard environment.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Mapping
from typing import Any

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def redact_url(url: str) -> str:
    """``url`` without its user, password and query (a URL without them is unchanged)."""
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError:  # not a URL after all (e.g. a bad port): hide all but the scheme
        return url.split("://", 1)[0] + "://***"
    if parts.username is None and parts.password is None and not parts.query:
        return url
    host = parts.hostname or ""
    if port is not None:
        host = f"{host}:{port}"
    if parts.username is not None or parts.password is not None:
        host = f"***@{host}"
    query = "?***" if parts.query else ""
    return urllib.parse.urlunsplit((parts.scheme, host, parts.path, "", "")) + query


_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"]+")


def redact_text(text: str) -> str:
    """``text`` with every URL in it redacted (``redact_url``), the rest unchanged."""
    return _URL_IN_TEXT.sub(lambda m: redact_url(m.group(0)), text)


def redact_value(value: Any) -> Any:
    """A value as it may be recorded: URLs redacted, mappings and lists walked, the rest kept."""
    if isinstance(value, str):
        return redact_url(value) if _URL.match(value) else value
    if isinstance(value, Mapping):
        return {k: redact_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(v) for v in value]
    return value
