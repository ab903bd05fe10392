"""A process that imports Sparring sends nothing about itself off the machine: MLflow 3's
usage telemetry is off unless the user turns it on (as Ray's usage stats are)."""

from __future__ import annotations

import os
import subprocess
import sys

# MLflow also turns its telemetry off under pytest and any of a dozen CI systems' variables:
# the probes run with a bare environment, so what they see is Sparring's doing.
_KEPT = ("PATH", "HOME", "LANG", "SPARRING_KERNEL_CACHE", "SPARRING_CACHE_DIR")
_PROBE = (
    "import sparring, mlflow; "
    "from mlflow.telemetry import get_telemetry_client; "
    "from mlflow.telemetry.utils import is_telemetry_disabled; "
    "print(is_telemetry_disabled(), get_telemetry_client() is None)"
)


def probe(code: str, **variables: str) -> str:
    env = {k: v for k, v in os.environ.items() if k in _KEPT} | variables
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.strip()


def test_mlflow_telemetry_is_off_in_a_process_that_imports_sparring():
    # off, and no client at all: no thread, no request for MLflow's remote config
    assert probe(_PROBE) == "True True"


def test_a_user_who_turns_it_on_is_heard():
    # (checked without importing MLflow: the test itself sends nothing)
    code = "import os, sparring; print(os.environ['MLFLOW_DISABLE_TELEMETRY'])"
    assert probe(code, MLFLOW_DISABLE_TELEMETRY="false") == "false"
