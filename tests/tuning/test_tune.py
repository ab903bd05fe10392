"""Hyperparameter search end to end: Ray Tune + Optuna + ASHA over tiny evolutions, every trial
an MLflow child run, the best config rerun exactly, a killed search resumed."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from sparring.pipelines import evolve, tune
from sparring.reporting.compare import compare
from sparring.runtime.tracking.runs import STOPPED_TAG
from sparring.tuning.runs import INTERRUPTED_NOTE, UNSAVED_FINISHED_NOTE, UNSAVED_NOTE
from sparring.tuning.trial import NUMBER_TAG, TRIAL_TAG
from tests.helpers.commands import (
    run_cli,
    run_pipeline,
    start_pipeline,
    wait_for_workers_gone,
    wait_while_running,
)
from tests.helpers.configs import CONF_DIR

pytestmark = pytest.mark.usefixtures("ray_session")


def children(uri: str, search_id: str, status: str | None = None):
    client = MlflowClient(uri)
    runs = client.search_runs(
        [e.experiment_id for e in client.search_experiments()],
        filter_string=f"tags.sweep_id = '{search_id}'",
    )
    kids = [r for r in runs if "mlflow.parentRunId" in r.data.tags]
    return [r for r in kids if status is None or r.info.status == status]


def assert_trials_closed(uri: str, search_id: str, records) -> None:
    """After a search: no child run is RUNNING, and every trial has its last reported
    objective and step on its run (a stopped one under the objective's own name too, at its
    step: what ``compare --sweep`` shows)."""
    kids = children(uri, search_id)
    assert [k.info.status for k in kids if k.info.status == "RUNNING"] == []
    runs = {k.data.tags[TRIAL_TAG]: k for k in kids if "sparring.ended_by" not in k.data.tags}
    client = MlflowClient(uri)
    for record in records:
        run = runs[record.trial_id]
        assert run.data.metrics["trial_objective"] == pytest.approx(record.objective)
        assert run.data.metrics["trial_step"] == record.step
        history = client.get_metric_history(run.info.run_id, "champion_bb100_vs_mixed")
        assert history and history[-1].value == pytest.approx(record.objective)
        if record.state == "stopped":
            assert history[-1].step == record.step


def assert_best_file_is_trial_config(uri: str, search_id: str, best_dir: Path, trial_id) -> None:
    """``+best=<search-id>`` composes exactly the config its trial ran: every key of evolve's
    composed config equals the best trial's recorded param, and there are no others (tracking
    and the preset's trial-only key ``registry.register`` aside)."""
    from sparring.config import to_typed
    from sparring.runtime.config import flatten
    from tests.helpers.configs import compose_config

    trial_only = {"registry.register"}
    searchpath = f"hydra.searchpath=[file://{best_dir.parent}]"
    config = to_typed(compose_config("evolve", f"+best={search_id}", searchpath))
    composed = {
        k: str(v)
        for k, v in flatten(config).items()
        if not k.startswith("tracking.") and k not in trial_only
    }
    runs = [r for r in children(uri, search_id, "FINISHED") if r.data.tags[TRIAL_TAG] == trial_id]
    assert len(runs) == 1
    recorded = {k: v for k, v in runs[0].data.params.items() if k not in trial_only}
    assert composed == recorded


def test_tpe_search_four_trials_two_at_once(pipeline_config, tmp_path, monkeypatch, mlflow_store):
    """A TPE search of 4 trials, 2 at once: a parent and 4 children in MLflow, the best config
    file composes, and rerunning it reproduces the best trial's objective exactly."""
    monkeypatch.chdir(tmp_path)  # trials run in the driver's directory: deals, checkpoints
    job = pipeline_config(
        "tune",
        "hparams_search=ga_smoke",
        "trials=4",
        "concurrency=2",
        "search_id=tpe4",
        f"storage={tmp_path / 'tune'}",
        f"best_dir={tmp_path / 'best'}",
    )
    out = tune.run(job)
    uri = mlflow_store["uri"]
    client = MlflowClient(uri)
    parent = client.get_run(out["run_id"])
    assert parent.info.status == "FINISHED"
    assert parent.data.tags["sweep_id"] == "tpe4" and parent.data.tags["sweep_parent"] == "true"
    kids = children(uri, "tpe4")
    assert len(kids) == 4
    assert {k.data.tags["mlflow.parentRunId"] for k in kids} == {out["run_id"]}
    assert sorted(int(k.data.tags[NUMBER_TAG]) for k in kids) == [1, 2, 3, 4]
    records = {r.trial_id: r for r in out["trials"]}
    failed = [r.trial_id for r in out["trials"] if r.state not in ("finished", "stopped")]
    assert not failed, f"trials that neither finished nor were stopped: {failed} (see stderr)"
    for kid in kids:  # each child is tagged with how its trial ended
        record = records[kid.data.tags[TRIAL_TAG]]
        assert kid.data.tags["trial_state"] == record.state
        expected = {"finished": "FINISHED", "stopped": "KILLED"}[record.state]
        assert kid.info.status == expected
    artifacts = {a.path for a in client.list_artifacts(out["run_id"])}
    assert {"tpe4.yaml", "objective.png", "trials.txt", "importance.png"} <= artifacts
    best = out["best"]
    assert best.state == "finished"
    assert parent.data.metrics["best_objective"] == best.objective
    assert_trials_closed(uri, "tpe4", out["trials"])
    assert_best_file_is_trial_config(uri, "tpe4", tmp_path / "best", best.trial_id)

    # The best config file composes with evolve and reproduces the best trial exactly.
    from sparring.config import to_typed
    from tests.helpers.configs import compose_config

    cfg = compose_config(
        "evolve",
        "+best=tpe4",
        f"hydra.searchpath=[file://{tmp_path}]",
        "registry.register=false",
    )
    cfg.tracking.uri = uri
    config = to_typed(cfg)
    for key, value in best.params.items():
        section, name = key.split(".")
        assert str(getattr(getattr(config, section), name)) == str(value)
    rerun = evolve.run(config)
    assert rerun["metrics"]["champion_bb100_vs_mixed"] == best.objective


def preset(tmp_path: Path, name: str, text: str) -> str:
    """A search preset in a directory of its own; returns the searchpath override."""
    (tmp_path / "conf" / "hparams_search").mkdir(parents=True, exist_ok=True)
    (tmp_path / "conf" / "hparams_search" / f"{name}.yaml").write_text(text)
    return f"hydra.searchpath=[file://{tmp_path / 'conf'}]"


ASHA_CASE = """
defaults:
  - ga_smoke
  - _self_
name: asha_case
algorithm: grid
space:   # a 2 x 2 grid of the smoke space; the other keys keep evolve's values
  ga.crossover_policy: {grid: null}
  ga.tournament: {grid: null}
scheduler:
  grace_period: 1          # a rung after every generation ...
  reduction_factor: 2      # ... that keeps the better half
"""


def test_asha_stops_a_trial_early(pipeline_config, tmp_path, monkeypatch, mlflow_store):
    """A constructed case: a grid, one trial at a time, a rung after every generation keeping
    half. The first trial sets the bar; a later one below it at a rung is stopped: its run is
    KILLED, tagged stopped_by and trial_state=stopped (evolve is deterministic, so is this)."""
    monkeypatch.chdir(tmp_path)
    job = pipeline_config(
        "tune",
        preset(tmp_path, "asha_case", ASHA_CASE),
        "hparams_search=asha_case",
        "concurrency=1",
        "search_id=asha",
        f"storage={tmp_path / 'tune'}",
        f"best_dir={tmp_path / 'best'}",
    )
    assert job.hparams_search.grid_size() == 4
    out = tune.run(job)
    assert len(out["trials"]) == 4
    assert [r.number for r in out["trials"]] == [1, 2, 3, 4]  # a grid's count from 1 too
    stopped = [r for r in out["trials"] if r.state == "stopped"]
    assert stopped, [(r.number, r.state, r.objective) for r in out["trials"]]
    assert out["trials"][0].state == "finished"  # nothing to compare the first one with
    for record in stopped:
        assert 1 <= record.step < 6
    runs = {r.data.tags[TRIAL_TAG]: r for r in children(mlflow_store["uri"], "asha")}
    assert sorted(int(r.data.tags[NUMBER_TAG]) for r in runs.values()) == [1, 2, 3, 4]
    for record in stopped:
        run = runs[record.trial_id]
        assert run.info.status == "KILLED"
        assert run.data.tags["sparring.stopped_by"].startswith("asha at step")
        assert run.data.tags["trial_state"] == "stopped"
    assert out["metrics"]["trials_stopped"] == len(stopped)
    assert_trials_closed(mlflow_store["uri"], "asha", out["trials"])


def test_a_killed_search_resumes_without_rerunning_finished_trials(tmp_path):
    """Kill the search (the driver, SIGKILL) after two trials finished; resumed without naming
    its preset, it reruns neither of them, runs the rest with the stored preset (not the
    default ga_tpe), refuses in one line an override that would change it, and ends with every
    trial finished once, no run RUNNING and a best file that composes its trial's config."""
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    args = [
        "hparams_search=ga_smoke",
        "hparams_search.scheduler.asha=false",
        "trials=5",  # a reused trial takes ~0.6 s: the kill leaves some to do
        "concurrency=1",
        "search_id=killed",
        f"storage={tmp_path / 'tune'}",
        f"best_dir={tmp_path / 'best'}",
        f"tracking.uri={uri}",
    ]
    env = {"RAY_USAGE_STATS_ENABLED": "0"}
    first = start_pipeline(
        "tune", *args, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:  # killed as soon as two trials finished
        wait_while_running(
            first,
            lambda: len(children(uri, "killed", "FINISHED")) >= 2,
            "second trial finished",
            timeout_s=400,
        )
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    # Its trial's worker lives on until the head notices the driver gone, and can still open a
    # run in that moment: the runs are counted once it has ended (the head ends it, not us).
    wait_for_workers_gone(tmp_path)
    done_before = {r.data.tags[TRIAL_TAG] for r in children(uri, "killed", "FINISHED")}
    assert len(done_before) >= 2 and len(done_before) < 5
    saved = json.loads((tmp_path / "tune" / "killed" / "sparring_search.json").read_text())["state"]
    assert saved["hparams_search"]["name"] == "ga_smoke" and saved["trials"] == 5
    assert saved["hparams_search"]["fixed"]["ga.generations"] == 6
    assert saved["hparams_search"]["scheduler"]["asha"] is False
    resume = [a for a in args if not a.startswith("hparams_search")] + ["resume=true"]
    started = len(children(uri, "killed"))
    for change, stored in (
        ("hparams_search=ga_tpe", "hparams_search=ga_smoke"),
        ("hparams_search.scheduler.asha=true", "hparams_search.scheduler.asha=false"),
        ("trials=8", "trials=5"),
    ):
        refused = run_pipeline("tune", *resume, change, cwd=tmp_path, env=env, timeout=120)
        assert refused.returncode == 2, refused.stderr[-2000:]
        assert refused.stderr.strip().splitlines() == [
            f"error: {change} is not allowed with resume=true: search killed keeps the "
            f"{stored} it started with (leave it out, or start a new search_id)"
        ]
        assert refused.stdout == ""  # before Ray and the search's first line
    assert len(children(uri, "killed")) == started
    second = run_pipeline("tune", *resume, cwd=tmp_path, env=env, timeout=600)
    assert second.returncode == 0, second.stderr[-3000:]
    assert [r.info.status for r in children(uri, "killed", "RUNNING")] == []
    for run in children(uri, "killed"):  # every trial ran ga_smoke's evolutions
        if not run.data.params:  # the kill came between the run's creation and its params
            assert run.info.status == "KILLED", run.data.tags[NUMBER_TAG]
            assert run.data.tags["sparring.ended_by"] in (
                INTERRUPTED_NOTE,
                UNSAVED_NOTE,
            )
            continue
        assert run.data.params["ga.generations"] == "6", run.data.tags[NUMBER_TAG]
        assert run.data.params["deals.heldout"] == "100"
        assert "trial_objective" in run.data.metrics or "sparring.ended_by" in run.data.tags
    finished = children(uri, "killed", "FINISHED")
    # a trial that finished after Tune's last save before the kill is not in the restored
    # search (a new one ran in its place); its run says so
    unsaved = {r.data.tags[TRIAL_TAG] for r in finished if "sparring.ended_by" in r.data.tags}
    for run in finished:
        assert run.data.tags.get("sparring.ended_by") in (None, UNSAVED_FINISHED_NOTE)
    runs = [r for r in finished if r.data.tags[TRIAL_TAG] not in unsaved]
    ids = [r.data.tags[TRIAL_TAG] for r in runs]
    assert len(ids) == 5 and len(set(ids)) == 5  # every trial finished exactly once
    assert done_before <= set(ids) | unsaved
    interrupted = children(uri, "killed", "KILLED")
    for run in interrupted:  # a trial cut by the kill was run again from its start, or, when
        # the kill came before Tune saved it, a new trial ran in its place and the run says so
        ended_by = run.data.tags["sparring.ended_by"]
        if run.data.tags[TRIAL_TAG] in ids:
            assert ended_by == INTERRUPTED_NOTE
        else:
            assert ended_by == UNSAVED_NOTE
        # #47 item 7: a cut run is not its trial's record, nor stopped by a scheduler
        assert "trial_state" not in run.data.tags and STOPPED_TAG not in run.data.tags
        assert "trial_objective" not in run.data.metrics
    # ... and compare --sweep lists each trial once: by its record, not by its cut run
    trial_of = {r.info.run_id: r.data.tags[TRIAL_TAG] for r in children(uri, "killed")}
    listed = compare(
        uri,
        None,
        "champion_bb100_vs_mixed",
        max_runs=100,
        output_dir=tmp_path / "compare",
        sweep="killed",
    )
    shown = [trial_of[r["run_id"]] for r in listed.runs]
    assert len(shown) == len(set(shown)) and set(ids) <= set(shown)
    assert {r["run_id"] for r in listed.runs} >= {r.info.run_id for r in runs}
    parents = MlflowClient(uri).search_runs(
        [MlflowClient(uri).get_experiment_by_name("evolve").experiment_id],
        filter_string="tags.sweep_parent = 'true'",
    )
    assert len(parents) == 1 and parents[0].info.status == "FINISHED"
    best_number = parents[0].data.tags["best_trial"]
    (best_id,) = [r.data.tags[TRIAL_TAG] for r in runs if r.data.tags[NUMBER_TAG] == best_number]
    assert_best_file_is_trial_config(uri, "killed", tmp_path / "best", best_id)


BAD_SPACES = {
    "empty": ("space: {}", "hparams_search.space={} is not allowed: expected at least one key"),
    "unknown_key": (
        "space:\n  ga.mutation_rate: {type: uniform, low: 0.1, high: 0.5}",
        "hparams_search.space.ga.mutation_rate: ga.mutation_rate is not a known key",
    ),
    "low_above_high": (
        "space:\n  ga.p_mutation: {type: uniform, low: 0.5, high: 0.1}",
        "hparams_search.space.ga.p_mutation.high=0.1 is not allowed: "
        "expected a number above low=0.5",
    ),
    "outside_the_schema": (
        "space:\n  ga.p_mutation: {type: uniform, low: 0.5, high: 1.5}",
        "hparams_search.space.ga.p_mutation: ga.p_mutation=1.5 is not allowed",
    ),
    "unknown_distribution": (
        "space:\n  ga.p_mutation: {type: gaussian, low: 0.1, high: 0.5}",
        "hparams_search.space.ga.p_mutation.type=gaussian is not allowed: expected one of uniform",
    ),
    "log_of_zero": (
        "space:\n  ga.variance: {type: loguniform, low: 0, high: 0.5}",
        "hparams_search.space.ga.variance.low=0 is not allowed: expected a number > 0",
    ),
    "choice_without_values": (
        "space:\n  ga.crossover_policy: {type: choice}",
        "hparams_search.space.ga.crossover_policy.values=None is not allowed: expected a non-empty",
    ),
    "choice_not_allowed": (
        "space:\n  ga.crossover_policy: {type: choice, values: [cycle, sideways]}",
        "hparams_search.space.ga.crossover_policy: ga.crossover_policy=sideways is not allowed",
    ),
    "grid_value_outside_the_schema": (  # the range's ends are fine; a grid point is not
        "algorithm: grid\nspace:\n  ga.population: {type: int, low: 8, high: 64, grid: [8, 3]}",
        "hparams_search.space.ga.population: ga.population=3 is not allowed",
    ),
}


def refusal(searchpath: str) -> str:
    """The one line a bad preset gets: from composing the search's config or from checking
    its space against the target's schema (what the tune pipeline does before any trial)."""
    from sparring.config import to_typed
    from sparring.runtime.explain import one_line
    from sparring.tuning import target
    from tests.helpers.configs import compose_config

    try:
        job = to_typed(compose_config("tune", searchpath, "hparams_search=bad"))
        target.check(str(CONF_DIR), job.hparams_search)
    except Exception as exc:
        line = one_line(exc)
        assert line is not None and "\n" not in line, repr(exc)
        return line
    raise AssertionError("the preset was accepted")


def bad_preset(tmp_path: Path, case: str) -> tuple[str, str]:
    text, expected = BAD_SPACES[case]
    body = f"name: bad\npipeline: evolve\nobjective: champion_bb100_vs_mixed\n{text}\n"
    return preset(tmp_path, "bad", body), expected


@pytest.mark.parametrize("case", sorted(BAD_SPACES))
def test_bad_search_spaces_are_refused_in_one_line(case, tmp_path):
    searchpath, expected = bad_preset(tmp_path, case)
    assert refusal(searchpath).startswith(expected)


def test_the_command_refuses_a_bad_space_before_any_work(tmp_path):
    """From the command line: one line, exit status 2, no Ray, no data, no MLflow store."""
    searchpath, expected = bad_preset(tmp_path, "outside_the_schema")
    out = run_cli("tune", searchpath, "hparams_search=bad", cwd=tmp_path, timeout=120)
    assert out.returncode == 2, out.stderr[-2000:]
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: " + expected), out.stderr
    assert not (tmp_path / "data").exists() and not (tmp_path / "mlflow.db").exists()


def test_sigterm_stops_a_search_as_ctrl_c_does(tmp_path):
    """#27 item 10 for tune: SIGTERM (cron, systemd, ``ray job stop``) goes through Tune's own
    graceful stop: the parent run KILLED, the resume line, exit 143 (it was 130 and no resume
    line, or Ray's C++ dump)."""
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    args = [
        "hparams_search=ga_smoke", "hparams_search.scheduler.asha=false", "trials=20",
        "concurrency=1", "search_id=term", f"storage={tmp_path / 'tune'}",
        f"best_dir={tmp_path / 'best'}", f"tracking.uri={uri}",
    ]  # fmt: skip
    env = {"RAY_USAGE_STATS_ENABLED": "0"}
    proc = start_pipeline("tune", *args, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)  # fmt: skip
    wait_while_running(
        proc, lambda: children(uri, "term", "FINISHED"), "trial finished", timeout_s=400
    )
    proc.send_signal(signal.SIGTERM)  # 19 trials left (~0.6 s each): the search is still on
    _, err = proc.communicate(timeout=180)
    assert proc.returncode == 143, err[-3000:]
    assert (
        f"terminated (SIGTERM); resume with: sparring tune search_id=term resume=true "
        f"storage={tmp_path / 'tune'}" in err
    ), err[-3000:]
    assert "Traceback" not in err and "SIGTERM received" not in err, err[-3000:]
    # said once, and Tune's own hint (a Python call) not at all
    assert err.count("terminated (SIGTERM)") == 1 and "Tuner.restore" not in err, err[-3000:]
    client = MlflowClient(uri)
    [parent] = [
        r
        for r in client.search_runs([e.experiment_id for e in client.search_experiments()])
        if r.data.tags.get("sweep_id") == "term" and "mlflow.parentRunId" not in r.data.tags
    ]
    assert parent.info.status == "KILLED"
    assert not children(uri, "term", "RUNNING")


TYPO_CASE = """
defaults:
  - ga_smoke
  - _self_
name: typo
objective: champion_bb100_vs_mixd
"""


def test_an_objective_the_target_does_not_report_stops_the_search_at_the_first_trial(tmp_path):
    """The objective names no metric of evolve (a typo): the schema cannot know a pipeline's
    metric names, so the first trial finds it. The search then stops (it went on to run every
    trial to its end, each failing, exit 1) with one line naming the closest metrics, exit 2,
    the parent run FAILED and one trial's run."""
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    out = run_cli(
        "tune", preset(tmp_path, "typo", TYPO_CASE), "hparams_search=typo",
        "hparams_search.scheduler.asha=false", "trials=4", "concurrency=1", "search_id=typo",
        f"storage={tmp_path / 'tune'}", f"best_dir={tmp_path / 'best'}", f"tracking.uri={uri}",
        cwd=tmp_path, timeout=600,
    )  # fmt: skip
    assert out.returncode == 2, out.stderr[-3000:]
    said = (
        "objective=champion_bb100_vs_mixd is not allowed: expected a metric of this run, e.g. "
        "champion_bb100_vs_mixed, champion_bb100_vs_maniac, champion_bb100_ci_low_vs_mixed"
    )
    last = out.stderr.strip().splitlines()[-1]
    assert last == f"error: {said} (the search stopped: no trial reported it)", last
    assert f"trial 1 failed: {said}" in " ".join(out.stdout.split())
    assert "trial 2" not in out.stdout
    assert len(children(uri, "typo")) == 1  # (its evolve run itself finished)
    (parent,) = [
        r for r in MlflowClient(uri).search_runs(
            [e.experiment_id for e in MlflowClient(uri).search_experiments()],
            filter_string="tags.sweep_id = 'typo'",
        ) if "mlflow.parentRunId" not in r.data.tags
    ]  # fmt: skip
    assert parent.info.status == "FAILED"


def test_a_step_without_the_objective_fails_at_that_step():
    """With a scheduler, the objective is read at every step: a missing one fails at the first
    step, not after the whole run (no Tune context is needed: it fails before reporting)."""
    from sparring.config.objective import MissingObjective
    from sparring.runtime.progress import report_step
    from sparring.tuning.trial import run_reported

    steps: list[int] = []

    def run(config):
        for step in range(1, 7):
            steps.append(step)
            report_step(step, 6, lambda: {"champion_bb100": 1.0})
        return {}

    with pytest.raises(MissingObjective, match="reported at every step.* e.g. champion_bb100$"):
        run_reported(run, None, "champion_bb100_vs_mixd", report_steps=True)
    assert steps == [1]
