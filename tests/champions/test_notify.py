"""The decision webhook: one POST to the configured URL, never a redirect followed, no secret in
what it reports."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import ClassVar

import pytest

from sparring.champions.notify import check_url, post_json, redact


class _Redirecting(BaseHTTPRequestHandler):
    seen: ClassVar[list[str]] = []

    def _answer(self) -> None:
        type(self).seen.append(f"{self.command} {self.path}")
        if self.path.startswith("/hook"):
            self.send_response(302)
            self.send_header("Location", "/internal-admin/delete?all=1")
            self.end_headers()
        else:
            self.send_response(200)
            self.end_headers()

    do_GET = do_POST = _answer

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def redirecting() -> Iterator[tuple[str, list[str]]]:
    _Redirecting.seen = []
    server = HTTPServer(("127.0.0.1", 0), _Redirecting)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", _Redirecting.seen
    server.shutdown()
    server.server_close()


def test_a_redirect_is_not_followed_and_counts_as_a_failure(redirecting):
    base, seen = redirecting
    error = post_json(f"{base}/hook", {"decision": "kept"}, timeout_s=5)
    assert error is not None and "HTTP 302" in error and "not followed" in error
    assert seen == ["POST /hook"]  # nothing was sent where the redirect pointed


def test_secrets_in_the_url_never_reach_the_report(redirecting):
    base, _ = redirecting
    host = base.removeprefix("http://")
    url = f"http://u:HOOKPASS@{host}/hook?token=SECRETTOKEN"
    error = post_json(url, {"decision": "kept"}, timeout_s=5)
    assert error is not None
    assert "HOOKPASS" not in error and "SECRETTOKEN" not in error and ":u" not in error
    assert redact(url) == f"http://***@{host}/hook?***"
    assert redact("https://example.org/h") == "https://example.org/h"


@pytest.mark.parametrize("url", ["ftp://127.0.0.1/hook", "file:///etc/passwd", "http://"])
def test_only_http_and_https_hooks_are_called(url):
    assert check_url(url) is not None
    assert "http:// or https://" in post_json(url, {"decision": "kept"})
