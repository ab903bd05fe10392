"""Webhooks: a JSON POST that tells someone how an unattended job ended."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any


def post_json(url: str, payload: dict[str, Any], timeout_s: float = 10.0) -> str | None:
    """POST ``payload`` as JSON to ``url``; returns None on a 2xx answer, else what went wrong
    in one line. A failed notification never changes the job's outcome, so it is reported,
    not raised."""
    body = json.dumps(payload, default=str).encode()
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={"Content-Type": "application/json", "User-Agent": "sparring"},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as answer:
            status = answer.status
    except urllib.error.HTTPError as exc:
        return f"{url} answered HTTP {exc.code}"
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        return f"{url} could not be reached ({reason})"
    return None if 200 <= status < 300 else f"{url} answered HTTP {status}"
