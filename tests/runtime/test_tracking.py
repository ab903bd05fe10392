from mlflow.tracking import MlflowClient

from sparring.runtime.tracking import tracked_run


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
    assert "git_commit" in got.data.tags
    assert [a.path for a in client.list_artifacts(run.run_id)] == ["notes.txt"]
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
