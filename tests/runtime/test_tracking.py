import getpass
import json
import sqlite3
import subprocess
from pathlib import Path

import yaml
from mlflow.tracking import MlflowClient
from sqlalchemy import event
from sqlalchemy.engine import Engine

from sparring.runtime.tracking.runs import default_run_name, tracked_run
from tests.helpers.commands import ROOT


def test_run_records_params_metrics_tags_and_status(mlflow_store, tmp_path):
    cfg = {
        "tracking": dict(mlflow_store, experiment="tracking-test"),
        "ga": {"population": 8},
        "seed": 3,
    }
    with tracked_run(cfg, "unit", tags={"extra": "yes"}) as run:
        run.log_metrics({"a": 1.5, "b": 2})
        run.log_metric_series("curve", [0.1, 0.2, 0.3])
        run.log_text("hello", "notes.txt")
    client = MlflowClient(mlflow_store["uri"])
    got = client.get_run(run.run_id)
    assert got.info.status == "FINISHED"
    assert got.data.params == {"ga.population": "8", "seed": "3"}
    assert got.data.metrics["a"] == 1.5 and got.data.metrics["b"] == 2
    assert [m.value for m in client.get_metric_history(run.run_id, "curve")] == [0.1, 0.2, 0.3]
    assert got.data.tags["extra"] == "yes" and got.data.tags["pipeline"] == "unit"
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    tags = got.data.tags
    # MLflow's standard tags (the UI's Source and User columns), the checkout's commit
    assert tags["mlflow.source.name"] == "pipelines/unit.py"
    assert tags["mlflow.source.type"] == "LOCAL"
    assert tags["mlflow.user"] == getpass.getuser()
    assert tags["mlflow.source.git.commit"] == tags["git_commit"] == head
    # a name that says what ran: pipeline and config hash (no overrides outside Hydra)
    assert got.info.run_name == f"unit {tags['config_hash'][:6]}"
    assert sorted(a.path for a in client.list_artifacts(run.run_id)) == [
        "config.yaml",
        "notes.txt",
    ]
    logged = yaml.safe_load(
        Path(client.download_artifacts(run.run_id, "config.yaml", str(tmp_path))).read_text()
    )
    assert logged == cfg  # the resolved config, tracking section included
    # a classic ML experiment, so MLflow 3's UI opens on the runs table
    experiment = client.get_experiment(got.info.experiment_id)
    assert experiment.tags["mlflow.experimentKind"] == "custom_model_development"


def test_a_failing_body_marks_the_run_failed(mlflow_store):
    cfg = {"tracking": dict(mlflow_store, experiment="tracking-test")}
    try:
        with tracked_run(cfg, "unit") as run:
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert MlflowClient(mlflow_store["uri"]).get_run(run.run_id).info.status == "FAILED"


def test_a_dataset_is_an_input_with_its_path_and_digest(mlflow_store, tmp_path):
    data = tmp_path / "deals"
    data.mkdir()
    with tracked_run({"tracking": dict(mlflow_store, experiment="tracking-test")}, "unit") as run:
        run.log_dataset("deals-train", data, "45a21fb5e1ec", "training", deals=30)
    got = MlflowClient(mlflow_store["uri"]).get_run(run.run_id)
    (only,) = got.inputs.dataset_inputs
    assert only.dataset.name == "deals-train" and only.dataset.digest == "45a21fb5e1ec"
    assert json.loads(only.dataset.source) == {"uri": data.resolve().as_uri()}
    assert json.loads(only.dataset.profile) == {"deals": 30}
    assert {(t.key, t.value) for t in only.tags} == {("mlflow.data.context", "training")}


def test_run_names_keep_what_changes_the_result_and_stay_short():
    name = default_run_name(
        "evolve", "3f2a1c9d", ["ga.population=64", "tracking.uri=sqlite:///x.db", "ray=cluster"]
    )
    assert name == "evolve 3f2a1c population=64"  # where things go is not in the name
    many = [f"ga.p_mutation=0.0{i}" for i in range(20)]
    long = default_run_name("evolve", "3f2a1c9d", many)
    assert len(long) <= 120 and long.endswith(" more")
    shown = long.split()[2:-2]  # keys shortened to their unambiguous last part
    assert (
        shown == [m[3:] for m in many[: len(shown)]] and long.split()[-2] == f"+{20 - len(shown)}"
    )


def test_two_runs_recording_one_dataset_at_once_both_keep_it(mlflow_store, tmp_path):
    """The race a search's trials run: MLflow looks a dataset up, finds none, and another run
    of the experiment inserts it before this run's insert. Injected here at that instant (a
    second connection writes the row just before MLflow's INSERT): the run still records
    its input, linked to the one dataset row the other run wrote."""
    data = tmp_path / "deals"
    data.mkdir()
    db = mlflow_store["uri"].removeprefix("sqlite:///")
    raced: list[str] = []

    def other_run_inserts_first(conn, cursor, statement, parameters, context, executemany):
        if raced or not statement.lstrip().startswith("INSERT INTO datasets"):
            return
        row = parameters[0] if executemany else parameters
        other = sqlite3.connect(db, timeout=30)
        with other:
            other.execute(
                "INSERT INTO datasets (dataset_uuid, experiment_id, name, digest, "
                "dataset_source_type, dataset_source) VALUES (?, ?, ?, ?, ?, ?)",
                ("other-run-uuid", *row[1:6]),
            )
        other.close()
        raced.append("other-run-uuid")

    cfg = {"tracking": dict(mlflow_store, experiment="tracking-race")}
    event.listen(Engine, "before_cursor_execute", other_run_inserts_first)
    try:
        with tracked_run(cfg, "unit") as run:
            run.log_dataset("deals-race", data, "0123456789ab", "training", deals=30)
    finally:
        event.remove(Engine, "before_cursor_execute", other_run_inserts_first)
    assert raced, "the injected race did not happen: MLflow no longer inserts datasets so"
    got = MlflowClient(mlflow_store["uri"]).get_run(run.run_id)
    assert got.info.status == "FINISHED"
    (only,) = got.inputs.dataset_inputs
    assert (only.dataset.name, only.dataset.digest) == ("deals-race", "0123456789ab")
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT dataset_uuid FROM datasets WHERE name = 'deals-race'"
        ).fetchall()
    assert rows == [("other-run-uuid",)]  # one dataset row, the other run's
