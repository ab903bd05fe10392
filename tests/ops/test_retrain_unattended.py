"""Retraining left to cron: an atomic claim per id, decisions that a rerun repeats with the same
exit status, a webhook, the history — against a real MLflow tracking server."""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from mlflow.tracking import MlflowClient

from sparring.champions.claims import ClaimHeld, acquire, claim_key, claims_of
from sparring.champions.registry import log_champion, register
from sparring.cli import main
from sparring.poker.bots import tight_aggressive
from tests.helpers.commands import run_cli, run_pipeline
from tests.ops.test_sweep_compare_retrain import TINY

MODEL = "cron-champion"

# A claimant process: says READY once imported, waits for "go" on stdin (start is true) or the
# start time, tries to claim, reports, holds, releases.
CLAIMANT = textwrap.dedent(
    """
    import sys, time
    from mlflow.tracking import MlflowClient
    from sparring.champions.claims import ClaimHeld, acquire
    uri, key, start, hold = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    client = MlflowClient(uri)
    if start == "go":
        print("READY", flush=True)
        sys.stdin.readline()
    else:
        time.sleep(max(0.0, float(start) - time.time()))
    try:
        claim = acquire(client, key, "the job")
    except ClaimHeld as exc:
        print("HELD", exc, flush=True)
        sys.exit(0)
    run = client.create_run(client.get_experiment_by_name("Default").experiment_id)
    claim.attach_run(run.info.run_id)
    print("GOT", run.info.run_id, flush=True)
    time.sleep(hold)
    claim.release()
    client.set_terminated(run.info.run_id)
    """
)


def claimant(uri: str, key: str, start: float | str, hold: float) -> subprocess.Popen:
    """A claimant that claims at ``start`` (a time), or when told "go" (``start="go"``)."""
    return subprocess.Popen(
        [sys.executable, "-c", CLAIMANT, uri, key, str(start), str(hold)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_of_claimants_started_together_exactly_one_holds_the_claim(mlflow_server):
    key = claim_key(MODEL, "retrain", "started-together")  # the session's server: its own id
    procs = [claimant(mlflow_server, key, "go", hold=6) for _ in range(4)]
    assert [p.stdout.readline() for p in procs] == ["READY\n"] * 4  # all imported and waiting
    for p in procs:  # released together
        p.stdin.write("go\n")
        p.stdin.flush()
    outs = [p.communicate(timeout=120)[0].split() for p in procs]
    assert all(p.returncode == 0 for p in procs), [p.stderr for p in procs]
    winners = [(p.pid, o[1]) for p, o in zip(procs, outs, strict=True) if o[0] == "GOT"]
    assert len(winners) == 1, outs
    (pid, run_id), held = winners[0], [" ".join(o) for o in outs if o[0] == "HELD"]
    # each loser names the winner: by its driver before it has a run, by its run after
    assert len(held) == 3, held
    host = socket.gethostname()
    assert all(f"driver {host}:{pid}:" in line or f"run {run_id} " in line for line in held), held
    assert claims_of(MlflowClient(mlflow_server), key) == []  # released at the end


def test_a_claim_whose_holder_was_killed_is_taken_over(mlflow_server):
    client = MlflowClient(mlflow_server)
    key = claim_key(MODEL, "retrain", "killed/holder:1")  # characters MLflow forbids in names
    holder = claimant(mlflow_server, key, time.time(), hold=300)
    assert holder.stdout.readline().startswith("GOT")
    with pytest.raises(ClaimHeld, match="already running"):
        acquire(client, key, "the job")
    os.kill(holder.pid, signal.SIGKILL)  # its run stays RUNNING; its driver is gone
    holder.wait()
    claim = acquire(client, key, "the job")
    assert [n for n, _ in claims_of(client, key)] == [1]  # the stale claim 0 was removed
    claim.release()


class Hooks(BaseHTTPRequestHandler):
    received: ClassVar[list[dict]] = []
    auth: ClassVar[list[str | None]] = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        Hooks.received.append(json.loads(body))
        Hooks.auth.append(self.headers.get("Authorization"))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def webhook():
    server = HTTPServer(("127.0.0.1", 0), Hooks)
    Hooks.received = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/hook", Hooks.received
    server.shutdown()


def retrain(uri: str, tmp: Path, *extra: str, model: str = MODEL) -> subprocess.CompletedProcess:
    return run_pipeline(
        "retrain",
        *TINY,
        "ga.generations=1",
        f"registry.model_name={model}",
        "retrain.id=2026-12-01",
        f"tracking.uri={uri}",
        "tracking.artifact_root=null",
        f"deals.root={tmp / 'deals'}",
        f"retrain.checkpoint_root={tmp / 'ck'}",
        f"checkpoint_root={tmp / 'evolve-ck'}",
        f"hydra.run.dir={tmp / 'hydra'}",
        *extra,
        cwd=tmp,
        timeout=600,
    )


def test_a_retrain_left_to_cron(mlflow_server, webhook, tmp_path):
    url, received = webhook
    client = MlflowClient(mlflow_server)
    seed_run = client.create_run(client.create_experiment("seed-cron"))
    log_champion(client, seed_run.info.run_id, tight_aggressive(), {"table_size": 6})
    register(client, MODEL, seed_run.info.run_id, "champion")

    # Another retrain of the same id is running: refused in one line naming its run.
    key = claim_key(MODEL, "retrain", "2026-12-01")
    holder = claimant(mlflow_server, key, time.time(), hold=300)
    try:
        holder_run = holder.stdout.readline().split()[1]
        refused = retrain(mlflow_server, tmp_path, f"notify.url={url}")
    finally:
        holder.kill()
        holder.wait()
    assert refused.returncode == 2, refused.stderr[-2000:]
    assert re.fullmatch(
        rf"error: retrain 2026-12-01 of model {MODEL} is already running: "
        rf"run {holder_run} \(since [0-9: -]+ UTC\) holds it",
        refused.stderr.strip(),
    ), refused.stderr
    assert received == []  # nothing ran, nothing to tell
    client.set_terminated(holder_run, status="KILLED")  # what the next run on a host would do

    # A strong champion is kept: exit 0 (a decision, not a failure of the job), the decision
    # posted, the evolve run nested here.
    kept = retrain(mlflow_server, tmp_path, f"notify.url={url}")
    assert kept.returncode == 0, kept.stderr[-3000:]
    (posted,) = received
    assert posted["decision"] == "kept" and posted["exit_status"] == 0
    assert posted["retrain_id"] == "2026-12-01" and posted["model"] == MODEL
    assert posted["edge_low"] <= posted["edge_bb100"] <= posted["edge_high"]
    assert posted["edge_low"] <= 0 and posted["champion_version"] == "1"
    runs = client.search_runs([client.get_experiment_by_name("retrain").experiment_id])
    (decision,) = [r for r in runs if r.data.tags["pipeline"] == "retrain"]
    (challenger,) = [r for r in runs if r.data.tags["pipeline"] == "evolve"]
    assert challenger.data.tags["mlflow.parentRunId"] == decision.info.run_id
    assert client.get_experiment_by_name("evolve") is None  # nothing leaks into `evolve`
    assert decision.info.run_id == posted["run_id"]
    assert decision.data.params["registry.model_name"] == MODEL  # (what the refusals filter by)
    assert decision.data.tags["notify"] == "sent"
    # What it prints: the challenger's table titled as such, and the decision run (with its
    # link) last, after the nested evolve's run.
    out = kept.stdout
    assert "Challenger on held-out deals" in out and "Champion on held-out deals" not in out
    printed = re.findall(r"\b[0-9a-f]{32}\b", out)
    assert printed[-1] == decision.info.run_id and challenger.info.run_id in printed
    link = f"{mlflow_server}/#/experiments/{decision.info.experiment_id}/runs/{printed[-1]}"
    assert link in out.replace("\n", "")

    # The same id again: the original decision with its numbers, the same exit status, no run.
    again = retrain(mlflow_server, tmp_path, f"notify.url={url}")
    assert again.returncode == 0, again.stderr[-3000:]
    assert f"already decided: kept (run {decision.info.run_id}" in " ".join(again.stdout.split())
    assert f"{posted['edge_bb100']:+.2f} bb/100" in again.stdout
    assert len(client.search_runs([decision.info.experiment_id])) == 2 and len(received) == 1

    # The history lists it with its interval.
    history = run_cli(
        "retrain",
        "history",
        "--tracking-uri",
        mlflow_server,
        timeout=120,
        env={"COLUMNS": "200"},  # one row per decision (pytest's children see 80)
    )
    assert history.returncode == 0, history.stderr
    row = next((line for line in history.stdout.splitlines() if "2026-12-01" in line), None)
    assert row is not None, history.stdout
    assert "kept" in row and MODEL in row and decision.info.run_id[:8] in row
    assert f"[{posted['edge_low']:+.2f}, {posted['edge_high']:+.2f}]" in row
    assert "(90% two-sided)" in row  # two one-sided 95% bounds, not a 95% interval


def test_a_retrain_without_a_champion_is_refused_before_any_run(mlflow_server, webhook, tmp_path):
    url, received = webhook
    client = MlflowClient(mlflow_server)
    nothing = retrain(mlflow_server, tmp_path, f"notify.url={url}", model="no-champion")
    assert nothing.returncode == 2, nothing.stderr[-3000:]
    reason = (
        "no model 'no-champion' with alias 'champion' in the registry: "
        "run pipelines/evolve.py first"
    )
    assert nothing.stderr.strip() == f"error: {reason}"
    # A champion of another table size: refused the same way.
    seed_run = client.create_run(client.create_experiment("seed-nine"))
    log_champion(client, seed_run.info.run_id, tight_aggressive(), {"table_size": 9})
    register(client, "nine-seats", seed_run.info.run_id, "champion")
    other = retrain(mlflow_server, tmp_path, f"notify.url={url}", model="nine-seats")
    assert other.returncode == 2, other.stderr[-3000:]
    assert other.stderr.strip() == "error: the champion plays 9 seats; table_size=6"

    # A league run named without a champion (its league would come after the evolution).
    six = client.create_run(client.create_experiment("seed-six")).info.run_id
    log_champion(client, six, tight_aggressive(), {"table_size": 6})
    register(client, "bad-league", six, "champion")
    no_champion = client.create_run(client.create_experiment("seed-empty")).info.run_id
    league = retrain(
        mlflow_server, tmp_path, f"notify.url={url}", f"league.runs=[{no_champion}]",
        model="bad-league",
    )  # fmt: skip
    assert league.returncode == 2, league.stderr[-3000:]
    said = f"error: league.runs: run {no_champion} has no champion/ artifact"
    assert league.stderr.strip() == said

    experiment = client.get_experiment_by_name("retrain")  # (the session's server: another
    # test's retrain may have made it) no run of any refused model
    runs = client.search_runs([experiment.experiment_id]) if experiment else []
    refused = {"no-champion", "nine-seats", "bad-league"}
    assert [r for r in runs if r.data.params.get("registry.model_name") in refused] == []
    assert [(r["decision"], r["exit_status"], r["model"]) for r in received] == [
        ("refused", 2, "no-champion"),
        ("refused", 2, "nine-seats"),
        ("refused", 2, "bad-league"),
    ]
    assert received[0]["reason"] == reason and received[0]["retrain_id"] == "2026-12-01"
    assert received[0]["run_id"] is None  # no run was created
    assert received[1]["reason"] == "the champion plays 9 seats; table_size=6"
    assert claims_of(client, claim_key("no-champion", "retrain", "2026-12-01")) == []


def test_a_webhook_that_fails_is_reported_not_fatal(tmp_path):
    from sparring.champions.notify import post_json
    from tests.helpers.services import free_port

    port = free_port()  # nothing listens there
    error = post_json(f"http://127.0.0.1:{port}/hook", {"decision": "kept"}, timeout_s=2)
    assert error is not None and error.startswith(f"http://127.0.0.1:{port}/hook could not")


def test_a_webhook_url_with_credentials_is_sent_as_basic_auth(webhook):
    """``https://user:pass@host/hook``: urllib took ``user:pass@host`` for the host name and
    never delivered; the credentials now go as HTTP basic auth (never printed: ``redact``)."""
    from sparring.champions.notify import post_json

    url, received = webhook
    with_user = url.replace("http://", "http://ops:s%3Acret@")
    Hooks.auth.clear()
    assert post_json(with_user, {"decision": "kept"}, timeout_s=5) is None
    assert received == [{"decision": "kept"}]
    assert Hooks.auth == ["Basic " + base64.b64encode(b"ops:s:cret").decode()]
    assert post_json(url, {"decision": "promoted"}, timeout_s=5) is None  # none without
    assert Hooks.auth[-1] is None


def test_history_with_no_decisions_says_so(tmp_path, capsys):
    from mlflow.tracking import MlflowClient

    uri = f"sqlite:///{tmp_path / 'empty.db'}"
    MlflowClient(uri).search_experiments()  # a store that exists, with no retrain in it
    assert main(["retrain", "history", "--tracking-uri", uri]) == 0
    assert "no retrain decisions" in capsys.readouterr().out


def test_history_and_results_of_a_missing_store_create_none(tmp_path, capsys):
    uri = f"sqlite:///{tmp_path / 'typo.db'}"
    for command in (["retrain", "history"], ["results"]):
        assert main([*command, "--tracking-uri", uri]) == 2
        assert f"no MLflow store at {tmp_path / 'typo.db'}" in capsys.readouterr().err
    assert not (tmp_path / "typo.db").exists()


def test_the_webhook_bodies_of_a_refusal_and_a_failure_carry_their_exit_status():
    from sparring.champions.decisions import failure, refusal
    from sparring.runtime.errors import UsageError

    assert refusal(UsageError("no champion")) == {
        "decision": "refused",
        "exit_status": 2,
        "reason": "no champion",
        "run_id": None,
    }
    # the launcher exits 1 on a bug (a traceback) and 2 on an error it prints in one line
    assert failure(RuntimeError("boom")) == {
        "decision": "failed",
        "exit_status": 1,
        "error": "RuntimeError('boom')",
    }
    assert failure(UsageError("shards not visible"))["exit_status"] == 2
