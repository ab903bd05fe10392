"""Webhooks: a JSON POST that tells someone how an unattended job ended.

What a hook may reach: the one URL configured, over ``http`` or ``https``, and nothing else. A
redirect is never followed (a 3xx answer would otherwise send the request, or a GET, to wherever
the answer points): it is recorded as a failed notification. A URL's ``user:password@`` is sent
as HTTP basic auth. Credentials and the query of the URL never appear in what is printed or
recorded (``redact``).
"""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from sparring.runtime.redact import redact_url as redact

SCHEMES = ("http", "https")
NOTIFY_URL_ENV = "SPARRING_NOTIFY_URL"  # the hook URL when notify.url is null: kept out of configs


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Turn every redirect into the 3xx answer it is (an HTTPError), never a second request."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)

__all__ = ["NOTIFY_URL_ENV", "check_url", "post_json", "redact"]


def check_url(url: str) -> str | None:
    """None for a URL a hook may call, else why not (one line, the URL redacted)."""
    scheme = urllib.parse.urlsplit(url).scheme.lower()
    if scheme not in SCHEMES or not urllib.parse.urlsplit(url).hostname:
        return f"{redact(url)}: a webhook URL must be http:// or https:// with a host"
    return None


def _basic_auth(url: str) -> tuple[str, dict[str, str]]:
    """``url`` without its ``user:password@`` and the HTTP basic-auth header they give (urllib
    would take them for part of the host name and never reach it)."""
    parts = urllib.parse.urlsplit(url)
    if parts.username is None:
        return url, {}
    user = urllib.parse.unquote(parts.username)
    password = urllib.parse.unquote(parts.password or "")
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    netloc = host if parts.port is None else f"{host}:{parts.port}"
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    bare = urllib.parse.urlunsplit(parts._replace(netloc=netloc))
    return bare, {"Authorization": f"Basic {token}"}


def post_json(url: str, payload: dict[str, Any], timeout_s: float = 10.0) -> str | None:
    """POST ``payload`` as JSON to ``url``; returns None on a 2xx answer, else what went wrong
    in one line (the URL redacted). A failed notification never changes the job's outcome, so
    it is reported, not raised. Redirects are not followed: a 3xx is a failure."""
    refused = check_url(url)
    if refused is not None:
        return refused
    shown = redact(url)
    body = json.dumps(payload, default=str).encode()
    target, auth = _basic_auth(url)
    request = urllib.request.Request(
        target,
        data=body,
        method="POST",
        headers={"Content-Type": "application/json", "User-Agent": "sparring", **auth},
    )
    try:
        with _OPENER.open(request, timeout=timeout_s) as answer:
            status = answer.status
    except urllib.error.HTTPError as exc:
        moved = " (a redirect: not followed)" if 300 <= exc.code < 400 else ""
        return f"{shown} answered HTTP {exc.code}{moved}"
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        return f"{shown} could not be reached ({reason})"
    return None if 200 <= status < 300 else f"{shown} answered HTTP {status}"
