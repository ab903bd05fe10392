"""No secret is recorded: URLs with credentials or a query are redacted in params, tags, the
run's config.yaml and what is printed."""

from __future__ import annotations

from pathlib import Path

import pytest

from sparring.runtime.redact import redact_url, redact_value
from tests.helpers.commands import run_pipeline

SECRETS = ("HOOKPASS", "SECRETTOKEN")


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            "http://u:HOOKPASS@127.0.0.1:18700/hook?token=SECRETTOKEN",
            "http://***@127.0.0.1:18700/hook?***",
        ),
        ("https://hooks.example.org/T0/B1?x=1", "https://hooks.example.org/T0/B1?***"),
        ("http://127.0.0.1:9000", "http://127.0.0.1:9000"),
        ("sqlite:///mlflow.db", "sqlite:///mlflow.db"),
        ("s3://bucket/deals", "s3://bucket/deals"),
        ("http://u@host:notaport/x", "http://***"),
    ],
)
def test_urls_lose_their_credentials_and_query(url, shown):
    assert redact_url(url) == shown


def test_values_are_walked_and_plain_text_kept():
    nested = {"a": ["http://u:HOOKPASS@h/x", 3], "b": {"c": "data/deals?x"}, "d": None}
    shown = {"a": ["http://***@h/x", 3], "b": {"c": "data/deals?x"}, "d": None}
    assert redact_value(nested) == shown


def test_a_run_records_no_secret_anywhere(ray_session, pipeline_config, tmp_path, capsys):
    """The URL of an S3 endpoint with a user, a password and a token (equity with a local
    output never calls it): nothing of the secrets in the store, the artifacts or the console.
    AWS keys in the environment are never recorded either."""
    from sparring.pipelines.equity import run

    endpoint = "http://u:HOOKPASS@127.0.0.1:18700/s3?token=SECRETTOKEN"
    cfg = pipeline_config(
        "equity", "trials=100", "opponents=[1]", "classes=[AA]",
        f"output={tmp_path / 'p.parquet'}", f"storage.endpoint='{endpoint}'",
    )  # fmt: skip
    run(cfg)
    printed = capsys.readouterr()
    store = Path(cfg.tracking.uri.removeprefix("sqlite:///"))
    recorded = store.read_bytes() + b"".join(
        p.read_bytes() for p in Path(cfg.tracking.artifact_root).rglob("*") if p.is_file()
    )
    for secret in (*SECRETS, "sparring-test-secret"):
        assert secret.encode() not in recorded, secret
        assert secret not in printed.out + printed.err, secret
    assert b"http://***@127.0.0.1:18700/s3?***" in recorded


def test_a_pipeline_run_from_the_command_line_leaves_no_secret_in_any_file_or_stream(tmp_path):
    """#27 item 6 through Hydra: its own files (``outputs/.../.hydra/``: the config, the
    overrides, its config) and everything printed, besides the store and the artifacts."""
    endpoint = "http://u:HOOKPASS@127.0.0.1:18700/s3?token=SECRETTOKEN"
    done = run_pipeline(
        "equity", "trials=100", "opponents=[1]", "classes=[AA]", "output=p.parquet",
        f"storage.endpoint='{endpoint}'", cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    hydra_files = list(tmp_path.glob("outputs/*/*/.hydra/*.yaml"))
    assert {p.name for p in hydra_files} >= {"config.yaml", "overrides.yaml", "hydra.yaml"}
    for secret in SECRETS:
        assert secret not in done.stdout + done.stderr, secret
        for path in tmp_path.rglob("*"):
            if path.is_file():
                assert secret.encode() not in path.read_bytes(), (secret, path)
    assert (
        "http://***@127.0.0.1:18700/s3?***"
        in (hydra_files[0].parent / "overrides.yaml").read_text()
    )
