"""``sparring results``: the latest finished run of each pipeline with its headlines."""

from sparring.cli import main
from sparring.pipelines.results import results
from sparring.runtime.tracking import tracked_run


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
