"""``sparring compare`` as a user reads it: every differing param, swept first, no cut names,
a misspelt metric refused with the close names, sweeps and registry versions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from mlflow.tracking import MlflowClient

from sparring.champions.registry import log_champion, register
from sparring.cli import main
from sparring.launch.preflight import check_readable_store
from sparring.reporting.compare import compare, short_names
from sparring.runtime.errors import ConfigError, UsageError
from sparring.runtime.tracking.runs import tracked_run

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
        equity = {"tracking": tracking, "trials": trials, "objective": "mean_stderr",
                  "direction": "minimize"}  # fmt: skip
        with tracked_run(equity, "equity") as eq:
            eq.log_metrics({"trials_per_s": trials * 10.0, "mean_stderr": 1.0 / trials})
    return runs


@pytest.fixture(scope="module")
def populated(tmp_path_factory):
    """One store for the module's tests (compare only reads it)."""
    root = tmp_path_factory.mktemp("store")
    uri = f"sqlite:///{root / 'm.db'}"
    return uri, populate(uri, root / "a")


@pytest.fixture
def store(populated, tmp_path):
    """The module's store, and a directory of the test's own for what compare writes."""
    uri, runs = populated
    return uri, runs, tmp_path


def test_a_sweep_shows_its_swept_param_first_and_cuts_no_name(store, capsys):
    uri, runs, tmp = store
    table = compare(
        uri, None, "champion_bb100", ["generations_per_min"], sweep=SWEEP, output_dir=tmp / "cmp"
    )
    assert [r["run_id"] for r in table.runs] == runs[::-1]  # ranked by the metric
    assert table.swept == ["ga.p_mutation"]
    # where the runs wrote is not what differs between them: named in a note, not a column
    assert table.differing == ["ga.p_mutation"]
    assert table.hidden == ["checkpoint_root", "retrain.checkpoint_root"]
    # short headers, unambiguous, with a legend giving the full names
    assert table.legend == {"p_mutation": "ga.p_mutation"}
    out = capsys.readouterr().out
    assert "…" not in out and "…" not in table.text
    assert "p_mutation *" in out and "--all-params" in out
    assert "columns: p_mutation=ga.p_mutation" in out and "* swept by its sweep" in out
    assert table.plot is not None and len(table.plot.read_bytes()) > 0
    every = compare(uri, None, "champion_bb100", sweep=SWEEP, output_dir=tmp, all_params=True)
    assert every.differing == ["ga.p_mutation", "checkpoint_root", "retrain.checkpoint_root"]
    assert "retrain.checkpoint_root" in capsys.readouterr().out


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


def test_the_objective_ranks_in_its_own_direction_and_order_overrides_it(store):
    """Equity minimises ``mean_stderr``: its best run (most trials) first, not its worst; any
    other metric is ranked descending; ``order`` says otherwise."""
    uri, _, tmp = store

    def trials(metric: str, order: str = "auto") -> list[str]:
        table = compare(uri, "equity", metric, output_dir=tmp / "cmp", order=order)
        return [r["params"]["trials"] for r in table.runs]

    assert trials("mean_stderr") == ["4000", "1000"]
    assert trials("mean_stderr", "desc") == ["1000", "4000"]
    assert trials("trials_per_s") == ["4000", "1000"]
    assert trials("trials_per_s", "asc") == ["1000", "4000"]


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


@pytest.mark.parametrize(
    ("experiment", "metrics"),
    [
        ("evolve", ["champion_bb10"]),
        ("evolve", ["champion_bb100", "generations_per_mn"]),
        ("evolv", ["champion_bb100"]),
        ("equity", ["champion_bb100"]),
    ],
)
def test_the_preflight_refuses_what_compare_refuses_in_the_same_words(store, experiment, metrics):
    """The store read with sqlite3 before MLflow is imported says exactly what compare's own
    check says for a misspelt experiment or metric, and passes what compare accepts."""
    uri, _, tmp = store
    with pytest.raises((UsageError, ConfigError)) as own:
        compare(uri, experiment, metrics[0], metrics[1:], output_dir=tmp / "cmp")
    with pytest.raises((UsageError, ConfigError)) as early:
        check_readable_store(uri, experiment, metrics)
    assert str(early.value) == str(own.value)
    check_readable_store(uri, "evolve", ["champion_bb100", "generations_per_min"])


def test_the_preflight_does_not_create_a_store_it_was_asked_to_read(tmp_path):
    missing = tmp_path / "typo.db"
    with pytest.raises(UsageError, match="no MLflow store at"):
        check_readable_store(f"sqlite:///{missing}", "evolve", ["champion_bb100"])
    assert not missing.exists()


def test_an_experiment_and_a_sweep_together_are_refused(store, capsys):
    uri, _, _ = store
    assert (
        main(["compare", "evolve", "--sweep", SWEEP, "--metric", "m", "--tracking-uri", uri]) == 2
    )
    assert "not both" in capsys.readouterr().err


# --- one line per run, fitted to the terminal; formats for scripts; the plot; run names -------

SWEEPS = [f"evolve-hparams-2026120{s}-030000" for s in range(3)]
P_MUTATION = [0.1 + t * 0.012345678901234 for t in range(5)]


def populate_searches(uri: str, artifacts: Path) -> MlflowClient:
    """17 evolve runs as the issue saw them: three searches of five trials each (every search
    has a ``trial 1``; p_mutation and crossover_policy swept; ``ray.address`` None in one and
    ``auto`` in the others; an absolute deals root and a checkpoint root per run), one run of
    its own and one FAILED run that logged no metric."""
    tracking = {"uri": uri, "artifact_root": str(artifacts)}
    client = MlflowClient(uri)
    with tracked_run({"tracking": tracking, "ray": {"address": None}}, "evolve") as first:
        first.log_metrics({"champion_bb100": 1.234567})
    for s, sweep in enumerate(SWEEPS):
        swept = {"ga.p_mutation": "interval", "ga.crossover_policy": "choice"}
        parent = client.create_run(
            first.experiment_id,
            run_name=sweep,
            tags={"sweep_parent": "true", "sweep_id": sweep, "sweep_params": json.dumps(swept)},
        )
        for t, p in enumerate(P_MUTATION):
            cfg = {
                "tracking": {
                    **tracking,
                    "parent_run_id": parent.info.run_id,
                    "run_name": f"trial {t + 1} p_mutation={p:.4g}",
                },
                "ray": {"address": "auto" if s else None},
                "ga": {"p_mutation": p, "crossover_policy": ["uniform", "one_point"][t % 2]},
                "deals": {"root": f"/home/someone/checkouts/sparring/data/deals/{s}"},
                "checkpoint_root": f"data/checkpoints/{s}/{t}",
            }
            with tracked_run(cfg, "evolve", tags={"sweep_id": sweep}) as run:
                value = 0.3496857506482932 * (t + 1) * (s + 1)
                run.log_metrics({"champion_bb100": value, "generations_per_min": 12345.678})
    failing = tracked_run({"tracking": tracking, "ga": {"population": 64}}, "evolve")
    with pytest.raises(RuntimeError), failing:
        raise RuntimeError("the run failed before any metric")
    return client


@pytest.fixture(scope="module")
def populated_searches(tmp_path_factory):
    """One store of searches for the module's tests (compare only reads it)."""
    root = tmp_path_factory.mktemp("searches")
    uri = f"sqlite:///{root / 'm.db'}"
    return uri, populate_searches(uri, root / "a")


@pytest.fixture
def searches(populated_searches, tmp_path):
    """The module's store of searches, and a directory of the test's own for compare's files."""
    uri, client = populated_searches
    return uri, client, tmp_path


def _truth(client: MlflowClient) -> dict[str, Any]:
    """run id -> run, for every evolve run but the sweeps' parents (what compare lists)."""
    experiment = client.get_experiment_by_name("evolve").experiment_id
    runs = client.search_runs([experiment], max_results=100)
    return {r.info.run_id: r for r in runs if r.data.tags.get("sweep_parent") != "true"}


def _compare_cli(uri: str, tmp: Path, *more: str) -> list[str]:
    return [
        "compare",
        "evolve",
        "--metric",
        "champion_bb100",
        "--metrics",
        "generations_per_min",
        "--max-runs",
        "50",
        "--tracking-uri",
        uri,
        "--output-dir",
        str(tmp / "cmp"),
        *more,
    ]


def _significant(token: str) -> int:
    digits = token.lstrip("-").rstrip("kMGT").replace(".", "").lstrip("0")
    return len(digits.split("e")[0])


def test_seventeen_runs_fit_one_line_each_in_100_columns(searches, capsys, monkeypatch):
    uri, client, tmp = searches
    monkeypatch.setenv("COLUMNS", "100")
    assert main(_compare_cli(uri, tmp)) == 0
    out = capsys.readouterr().out
    lines = [x for x in out.splitlines() if not x.startswith("plot: ")]  # a path is not cut
    assert max(len(line) for line in lines) <= 100, out
    runs = list(_truth(client).values())
    assert len(runs) == 17
    for run in runs:  # every run on exactly one line, with its short id
        (line,) = [x for x in lines if run.info.run_id[:8] in x]
        value = run.data.metrics.get("champion_bb100")
        cell = "-" if value is None else f"{value:.4g}"
        assert f" {cell} " in line + " "
    header = next(x for x in lines if x.lstrip().startswith("#"))
    assert "ray.address" not in header and "root" not in header
    assert "p_mutation *" in header and "FAILED" in out
    # the three searches' "trial 1" are told apart by their sweep label
    trial_ones = [x.split() for x in lines if " trial 1 " in x]
    assert sorted(t[2] for t in trial_ones) == ["s1", "s2", "s3"]
    for sweep in SWEEPS:
        assert f"= {sweep}" in out
    assert "ray.address" in out and "--all-params" in out  # named as left out
    table = [x for x in lines if x[:3].strip().isdigit()]
    numbers = [t for x in table for t in x.split() if any(c.isdigit() for c in t) and "." in t]
    assert numbers and all(_significant(t) <= 4 for t in numbers), numbers
    assert "0.3496857506482932" not in out and "0.112345678901234" not in out


def test_all_params_shows_infrastructure_and_a_wide_terminal_every_column(
    searches, capsys, monkeypatch
):
    uri, _, tmp = searches
    monkeypatch.setenv("COLUMNS", "250")
    assert main(_compare_cli(uri, tmp, "--all-params")) == 0
    out = capsys.readouterr().out
    header = next(x for x in out.splitlines() if x.lstrip().startswith("#"))
    assert " address " in header and "crossover_policy *" in header
    assert "address=ray.address" in out and "checkpoint_root" in header
    assert max(len(x) for x in out.splitlines() if not x.startswith("plot: ")) <= 250


def test_the_width_follows_columns_and_piped_output_has_a_default(monkeypatch):
    from sparring.reporting.console import DEFAULT_WIDTH, terminal_width

    monkeypatch.setenv("COLUMNS", "77")
    assert terminal_width() == 77
    monkeypatch.delenv("COLUMNS")
    assert terminal_width() == DEFAULT_WIDTH  # pytest's stdout is not a terminal


def test_csv_json_and_markdown_parse_back_to_the_same_values(searches, capsys, monkeypatch):
    import csv
    import io

    uri, client, tmp = searches
    truth = _truth(client)
    assert main(_compare_cli(uri, tmp, "--format", "csv")) == 0
    captured = capsys.readouterr()
    assert "plot:" in captured.err and "plot:" not in captured.out
    rows = list(csv.DictReader(io.StringIO(captured.out)))
    assert len(rows) == 17 and "ray.address" not in rows[0]
    for row in rows:
        run = truth[row["run_id"]]
        assert row["name"] == run.info.run_name and row["status"] == run.info.status
        value = run.data.metrics.get("champion_bb100")
        assert (float(row["champion_bb100"]) if row["champion_bb100"] else None) == value
        if "ga.p_mutation" in run.data.params:
            assert row["ga.p_mutation"] == run.data.params["ga.p_mutation"]

    assert main(_compare_cli(uri, tmp, "--format", "json")) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["run_id"] for r in data["runs"]] == [r["run_id"] for r in rows]
    for item in data["runs"]:
        run = truth[item["run_id"]]
        assert item["metrics"]["champion_bb100"] == run.data.metrics.get("champion_bb100")
        assert item["params"].get("ga.crossover_policy", "") == run.data.params.get(
            "ga.crossover_policy", ""
        )

    assert main(_compare_cli(uri, tmp, "--format", "markdown")) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in lines]
    header, body = cells[0], cells[2:]
    assert len(body) == 17 and set(cells[1]) <= {"---", "---:"}
    for row in body:
        (run_id,) = [r for r in truth if r.startswith(row[header.index("id")])]
        value = truth[run_id].data.metrics.get("champion_bb100")
        cell = row[header.index("champion_bb100")]
        assert cell == "-" if value is None else float(cell) == pytest.approx(value, rel=5e-4)


def test_the_plot_leaves_out_a_failed_run_without_the_metric(searches, monkeypatch):
    import sparring.reporting.compare as compare_module
    from sparring.reporting.plots import bars_figure, grouped_bars

    uri, _, tmp = searches
    drawn = []

    def spy(path, groups, series, *rest):  # the real plot, with its data kept to check
        drawn.append((groups, series))
        return grouped_bars(path, groups, series, *rest)

    monkeypatch.setattr(compare_module, "grouped_bars", spy)
    table = compare(uri, "evolve", "champion_bb100", max_runs=50, output_dir=tmp / "cmp")
    ((groups, series),) = drawn
    (failed,) = [r for r in table.runs if r["status"] == "FAILED"]
    values = dict(zip(groups, series["champion_bb100"], strict=True))
    (label,) = [g for g in groups if failed["run_id"][:8] in g]
    assert values[label] is None  # not 0
    assert all(v is not None for g, v in values.items() if g != label)

    fig = bars_figure(groups, series, "t", "champion_bb100", "run")
    ax = fig.axes[0]
    heights = [p.get_height() for p in ax.patches]
    assert len(heights) == 16 and 0.0 not in heights
    assert [t.get_text() for t in ax.texts] == ["no value"]
    (marker,) = [line for line in ax.lines if line.get_marker() == "x"]
    assert list(marker.get_xdata()) == [groups.index(label)]
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks == list(groups) and all(t.get_rotation() == 90 for t in ax.get_xticklabels())


def test_run_names_keep_the_varied_keys_and_leave_out_paths_and_infrastructure():
    from sparring.runtime.tracking.runs import default_run_name

    overrides = [
        "ga.population=8",
        "deals.root=/home/someone/checkouts/a-rather-long-directory-name/sparring/data/deals",
        "ray.address=auto",
        "checkpoint_root=s3://bucket/checkpoints/evolve",
        "generations=30",
        "ga.p_mutation=0.3496857506482932",
        "ga.crossover_policy=uniform",
        "tracking.uri=sqlite:///x.db",
    ]
    keys = ["ga.population", "ga.p_mutation", "ga.crossover_policy", "generations", "seed"]
    name = default_run_name("evolve", "2e47f1aa", overrides, keys)
    assert name == (
        "evolve 2e47f1 population=8 generations=30 p_mutation=0.3497 crossover_policy=uniform"
    )
    # a short key that another config key would share keeps its prefix
    clash = default_run_name("evolve", "2e47f1aa", ["ga.seed=3"], ["seed", "ga.seed"])
    assert clash == "evolve 2e47f1 ga.seed=3"
    long = default_run_name("evolve", "2e47f1aa", ["notes=" + "x" * 200])
    assert len(long) <= 120 and long.endswith("…")


def test_the_trials_of_a_sweep_are_listed_together_under_one_label(searches, capsys):
    from sparring.reporting.compare import compare

    uri, _, tmp = searches
    table = compare(uri, "evolve", "champion_bb100", output_dir=tmp / "cmp")
    capsys.readouterr()
    groups = [r["parent_run_id"] or r["run_id"] for r in table.runs]
    seen: list[str] = []
    for group in groups:  # a group, once left, never comes back
        if not seen or seen[-1] != group:
            assert group not in seen, groups
            seen.append(group)
    assert len(seen) == 3 + 2  # three searches, the lone run and the failed one
    for parent in {r["parent_run_id"] for r in table.runs if r["parent_run_id"]}:
        labels = {r["label"] for r in table.runs if r["parent_run_id"] == parent}
        assert len(labels) == 1 and labels != {""}
    # within a search, ranked by the metric (a run without it last)
    for parent in {r["parent_run_id"] for r in table.runs if r["parent_run_id"]}:
        trials = [r for r in table.runs if r["parent_run_id"] == parent]
        present = [r["metrics"]["champion_bb100"] for r in trials]
        present = [v for v in present if v is not None]
        assert present == sorted(present, reverse=True)


def test_results_shows_every_pipeline_the_arena_included(tmp_path, capsys):
    """``sparring results``: the latest run of each pipeline with its headlines; the arena's
    pair score, games and forfeits among them."""
    from sparring.cli.results import HEADLINES, results

    uri = f"sqlite:///{tmp_path / 'm.db'}"
    tracking = {"uri": uri, "artifact_root": str(tmp_path / "a")}
    with tracked_run({"tracking": tracking}, "arena") as run:
        run.log_metrics({"pair/random/first/score": 0.25, "games": 8.0, "forfeits": 1.0})
    text = results(uri)
    [row] = [line for line in text.splitlines() if "arena" in line]
    assert "pair/random/first/score 0.25" in row and "games 8" in row and "forfeits 1" in row
    assert "arena" in HEADLINES


def test_the_no_value_legend_appears_only_when_a_run_shows_no_value(store, capsys):
    uri, _, tmp = store
    every = compare(uri, "equity", "mean_stderr", output_dir=tmp / "cmp").text
    assert "did not log" not in every  # both equity runs logged it
    some = compare(uri, "evolve", "champion_bb100", output_dir=tmp / "cmp").text
    assert "- = the run did not log this metric" in some  # the empty first run shows "-"


# --- #47 item 9: the params that tell runs apart, in the width there is ------------------------

BY_HAND = [  # (seed, p_mutation, crossover_policy): evolve run by hand with three overrides
    (0, 0.3, "cycle"),
    (1, 0.3, "cycle"),
    (2, 0.1, "random"),
    (0, 0.1, "fixed"),
    (3, 0.05, "random"),
]


def populate_by_hand(uri: str, artifacts: Path) -> None:
    """Five evolve runs with the default run names (``evolve <hash>``; no Hydra here): seed,
    p_mutation and crossover_policy set differently in most; population, generations and the
    deal counts set differently in one (a quick try-out among them)."""
    tracking = {"uri": uri, "artifact_root": str(artifacts)}
    for i, (seed, p, policy) in enumerate(BY_HAND):
        quick = i == 3
        cfg = {
            "tracking": tracking,
            "seed": seed,
            "table_size": 10,
            "ga": {
                "p_mutation": p,
                "crossover_policy": policy,
                "population": 16 if quick else 64,
                "generations": 3 if quick else 200,
            },
            "deals": {"train": 60 if quick else 2000, "heldout": 150 if quick else 5000},
        }
        with tracked_run(cfg, "evolve") as run:
            run.log_metrics(
                {"champion_bb100": 1.5 * i, "best_fitness": 0.123, "generations_per_min": 12345.6}
            )


@pytest.fixture(scope="module")
def by_hand(tmp_path_factory):
    root = tmp_path_factory.mktemp("by_hand")
    uri = f"sqlite:///{root / 'm.db'}"
    populate_by_hand(uri, root / "a")
    return uri


def test_at_100_columns_the_params_that_tell_runs_apart_are_shown_first(
    by_hand, tmp_path, capsys, monkeypatch
):
    """#47 item 9: at 100 columns compare showed only the deal counts (set differently in one
    run) and left out seed, p_mutation and crossover_policy with 7 columns free, beside a run
    column of ``evolve <hash>`` names. The params telling most runs apart come first and are
    shown (a long header abbreviated, named in full in the legend), the run column that says
    nothing is not, what does not fit is named in one line and the width is used."""
    monkeypatch.setenv("COLUMNS", "100")
    metrics = ["best_fitness", "generations_per_min"]
    table = compare(by_hand, "evolve", "champion_bb100", metrics, output_dir=tmp_path / "cmp")
    out = capsys.readouterr().out
    assert table.differing[:3] == ["seed", "ga.crossover_policy", "ga.p_mutation"]
    lines = [x for x in out.splitlines() if not x.startswith("plot: ")]
    assert max(len(x) for x in lines) <= 100, out
    (header,) = [x for x in lines if x.startswith("#")]
    names = header.split()
    full = {table.legend.get(h, h) for h in names}  # a header read through the legend
    assert {"seed", "ga.crossover_policy", "ga.p_mutation"} <= full, out
    assert {"champion_bb100", "best_fitness", "generations_per_min"} <= full, out
    for name in names:  # every abbreviation in the legend, under its full name
        assert not name.endswith("…") or name in table.legend, (name, table.legend)
    assert "run" not in names and "evolve " not in "\n".join(lines[1:8]), out
    # the values as the runs set them, one line per run
    rows = [x.split() for x in lines[3:8]]
    assert sorted((int(r[2]), r[3]) for r in rows) == sorted((s, c) for s, _, c in BY_HAND)
    # left out: only params that set one run apart, named in one line; and no room left unused
    # that the narrowest of them would fit in
    assert table.left_out and set(table.left_out) <= {"population", "generations", "heldout",
                                                      "train"}  # fmt: skip
    (note,) = [x for x in lines if x.startswith("not shown in 100 columns: ")]
    assert all(name in note for name in table.left_out)
    used = len(lines[2])  # the rule under the header spans the table
    assert 100 - used < len(min(table.left_out, key=len)) + 2, out
