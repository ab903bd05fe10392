"""``sparring results``: the latest finished run of each pipeline with its headlines."""

from sparring.cli import main
from sparring.cli.results import results
from sparring.runtime.tracking.runs import tracked_run


def test_latest_finished_run_per_pipeline(tmp_path, capsys):
    tracking = {"uri": f"sqlite:///{tmp_path / 'm.db'}", "artifact_root": str(tmp_path / "a")}
    assert results(tracking["uri"]) == ""
    assert "no finished pipeline runs" in capsys.readouterr().out
    for value in (0.9, 0.4):
        with tracked_run({"tracking": tracking, "x": value}, "validate") as run:
            run.log_metrics({"coverage": value, "error_slope": -0.5, "other": 1.0})
    with tracked_run({"tracking": tracking}, "equity") as run:
        run.log_metrics({"trials_per_s": 123456.0})
    text = results(tracking["uri"])
    assert "coverage 0.4" in text and "coverage 0.9" not in text  # the latest run only
    assert "error_slope -0.5" in text and "other" not in text  # headlines only
    assert "trials_per_s 123,456" in text
    assert main(["results", "--tracking-uri", tracking["uri"]]) == 0


def test_only_top_level_runs_and_the_registered_champions(tmp_path):
    import numpy as np
    from mlflow.tracking import MlflowClient

    from sparring.champions.claims import acquire, claim_key
    from sparring.champions.registry import log_champion, register

    tracking = {"uri": f"sqlite:///{tmp_path / 'm.db'}", "artifact_root": str(tmp_path / "a")}
    client = MlflowClient(tracking["uri"])
    with tracked_run({"tracking": tracking}, "evolve") as top:
        top.log_metrics({"champion_bb100": 12.5})
        log_champion(client, top.run_id, np.zeros((540, 2), np.int8), {"table_size": 6})
    register(client, "sparring-holdem-champion", top.run_id, "champion")
    nested = {"tracking": {**tracking, "parent_run_id": top.run_id}}
    with tracked_run(nested, "evolve") as child:  # newer, but a child (e.g. a retrain's)
        child.log_metrics({"champion_bb100": -40.0})
    client.set_terminated(
        client.create_run(top.experiment_id, tags={"sweep_parent": "true"}).info.run_id
    )
    claim = acquire(client, claim_key("sparring-holdem-champion", "retrain", "x"), "a retrain")
    try:
        text = results(tracking["uri"])
    finally:
        claim.release()
    assert "champion_bb100 12.5" in text and "-40" not in text
    assert top.run_id[:8] in text and child.run_id[:8] not in text
    champions = text.split("Registered champions")[1]
    assert "sparring-holdem-champion" in champions and "@champion" in champions
    assert "v1" in champions and "retrain" not in champions  # a claim is not a champion


def test_every_alias_and_the_newest_version_without_one(tmp_path):
    from sparring.champions.registry import register
    from sparring.cli.results import champions
    from tests.pipelines.test_champion_alias import champion_runs

    client, runs = champion_runs(tmp_path, 4)
    model = "sparring-holdem-champion"
    register(client, model, runs[0], "champion")  # v1 @champion
    register(client, model, runs[1], "staging")  # v2 @staging
    client.set_registered_model_alias(model, "best", "2")  # v2 holds two aliases
    register(client, model, runs[2], None)  # v3, v4: ad-hoc runs, no alias
    register(client, model, runs[3], None)
    rows = {(alias, version) for _, alias, version, _ in champions(client)}
    assert {("@champion", "v1"), ("@best", "v2"), ("@staging", "v2")} <= rows
    # the newest version is shown, marked as holding no alias (not taken for the champion)
    assert ("(no alias)", "v4 (newest)") in rows and len(rows) == 4
    text = results(client.tracking_uri)
    assert "@champion" in text and "v4 (newest)" in text
