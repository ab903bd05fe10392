"""``sparring compare`` as a user reads it: every differing param, swept first, no cut names,
a misspelt metric refused with the close names, sweeps and registry versions."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from mlflow.tracking import MlflowClient

from sparring.champions.registry import log_champion, register
from sparring.cli import main
from sparring.pipelines.compare import compare, short_names
from sparring.runtime.tracking import tracked_run

SWEEP = "evolve-ga_operators-20261201-030000"


def populate(uri: str, artifacts: Path, sweep: str = SWEEP) -> list[str]:
    """An evolve experiment: one sweep of three runs (p_mutation swept; checkpoint roots and
    the retrain root differ too) and one run outside it; two registered versions; an equity
    run with ``trials=4000``. Returns the sweep's run ids."""
    tracking = {"uri": uri, "artifact_root": str(artifacts)}
    client = MlflowClient(uri)
    with tracked_run({"tracking": tracking}, "evolve") as first:
        pass  # creates the experiment
    parent = client.create_run(
        first.experiment_id,
        run_name=sweep,
        tags={
            "sweep_parent": "true",
            "sweep_id": sweep,
            "sweep_params": json.dumps({"ga.p_mutation": "0.01,0.02,0.05"}),
        },
    )
    runs = []
    for i, p in enumerate((0.01, 0.02, 0.05)):
        cfg = {
            "tracking": {**tracking, "parent_run_id": parent.info.run_id},
            "ga": {"p_mutation": p, "population": 16},
            "checkpoint_root": f"data/ck/{i}",
            "retrain": {"checkpoint_root": f"data/rt/{i}"},
        }
        with tracked_run(cfg, "evolve", tags={"sweep_id": sweep}) as run:
            run.log_metrics({"champion_bb100": 10.0 * i, "generations_per_min": 5.0})
            log_champion(client, run.run_id, np.zeros((540, 2), np.int8), {"table_size": 6})
        runs.append(run.run_id)
    with tracked_run({"tracking": tracking, "ga": {"population": 64}}, "evolve") as other:
        other.log_metrics({"champion_bb100": 99.0})
    register(client, "sparring-holdem-champion", runs[0], None)
    register(client, "sparring-holdem-champion", runs[2], "champion")
    for trials in (1000, 4000):
        with tracked_run({"tracking": tracking, "trials": trials}, "equity") as eq:
            eq.log_metrics({"trials_per_s": trials * 10.0, "mean_stderr": 1.0 / trials})
    return runs


@pytest.fixture
def store(tmp_path):
    uri = f"sqlite:///{tmp_path / 'm.db'}"
    return uri, populate(uri, tmp_path / "a"), tmp_path


def test_a_sweep_shows_its_swept_param_first_and_cuts_no_name(store, capsys):
    uri, runs, tmp = store
    table = compare(
        uri, None, "champion_bb100", ["generations_per_min"], sweep=SWEEP, output_dir=tmp / "cmp"
    )
    assert [r["run_id"] for r in table.runs] == runs[::-1]  # ranked by the metric
    assert table.swept == ["ga.p_mutation"]
    assert table.differing == ["ga.p_mutation", "checkpoint_root", "retrain.checkpoint_root"]
    # short headers, unambiguous, with a legend giving the full names
    assert table.legend == {"p_mutation": "ga.p_mutation"}
    out = capsys.readouterr().out
    assert "…" not in out and "…" not in table.text
    assert "p_mutation *" in out and "retrain.checkpoint_root" in out
    assert "columns: p_mutation = ga.p_mutation" in out and "* swept by the sweep" in out
    assert table.plot is not None and len(table.plot.read_bytes()) > 0


def test_short_names_are_unique_suffixes():
    keys = ["ga.p_mutation", "checkpoint_root", "retrain.checkpoint_root", "deals.root"]
    assert short_names(keys) == {
        "ga.p_mutation": "p_mutation",
        "checkpoint_root": "checkpoint_root",
        "retrain.checkpoint_root": "retrain.checkpoint_root",
        "deals.root": "root",
    }


def test_an_experiment_lists_its_own_runs_but_not_the_sweep_parent(store):
    uri, _, tmp = store
    table = compare(uri, "evolve", "champion_bb100", output_dir=tmp / "cmp")
    names = [r["name"] for r in table.runs]
    assert len(table.runs) == 5  # the parent is left out; the empty first run is kept
    assert not any(n == SWEEP for n in names)
    assert table.runs[0]["metrics"]["champion_bb100"] == 99.0


def test_registry_versions_are_labelled_with_version_and_alias(store):
    uri, runs, tmp = store
    table = compare(
        uri, None, "champion_bb100", model="sparring-holdem-champion", output_dir=tmp / "cmp"
    )
    assert [(r["name"], r["run_id"]) for r in table.runs] == [
        ("v2 @champion", runs[2]),
        ("v1", runs[0]),
    ]


def test_a_misspelt_metric_is_refused_with_close_matches(store, capsys):
    uri, _, tmp = store
    code = main(
        [
            "compare",
            "evolve",
            "--metric",
            "champion_bb10",
            "--tracking-uri",
            uri,
            "--output-dir",
            str(tmp / "cmp"),
        ]
    )
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert "no run in experiment 'evolve' has metric 'champion_bb10'" in err
    assert "close matches: champion_bb100" in err
    assert not (tmp / "cmp").exists() or not any((tmp / "cmp").iterdir())


def test_an_experiment_and_a_sweep_together_are_refused(store, capsys):
    uri, _, _ = store
    assert (
        main(["compare", "evolve", "--sweep", SWEEP, "--metric", "m", "--tracking-uri", uri]) == 2
    )
    assert "not both" in capsys.readouterr().err
