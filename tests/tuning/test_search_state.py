"""A search's stored state (no Ray): a resume takes the stored preset and keys, refuses in one
line an override that would change them; the end of a search closes every trial's run with its
last objective."""

from __future__ import annotations

import json

import pytest
from mlflow.tracking import MlflowClient

from sparring.config import to_typed
from sparring.runtime.config import to_container
from sparring.runtime.errors import ConfigError, UsageError
from sparring.runtime.explain import one_line
from sparring.tuning import state
from sparring.tuning.summary import TrialRecord
from tests.helpers.configs import compose_config

STARTED = ("hparams_search=ga_smoke", "hparams_search.scheduler.asha=false", "trials=4")
RESUME = ("search_id=s1", "resume=true", "storage=/tmp/none")


def saved_search() -> state.SearchState:
    """The state a search started with ``STARTED`` stores."""
    job = to_typed(compose_config("tune", *STARTED, "search_id=s1"))
    return state.SearchState("parent-id", "s1", state.kept_keys(job))


def resume(*overrides: str):
    """``sparring tune search_id=s1 resume=true <overrides>`` as the pipeline resolves it."""
    job = to_typed(compose_config("tune", *RESUME, *overrides))
    return state.resumed(job, saved_search(), [*RESUME, *overrides])


def test_a_resume_without_the_preset_takes_the_stored_one():
    started = to_typed(compose_config("tune", *STARTED, "search_id=s1"))
    job = resume()  # composed with the default preset ga_tpe and trials=24
    assert to_container(job.hparams_search) == to_container(started.hparams_search)
    assert job.hparams_search.name == "ga_smoke"
    assert job.hparams_search.fixed["ga.generations"] == 6
    assert job.hparams_search.scheduler.asha is False
    assert job.trials == 4
    assert job.resume is True and job.search_id == "s1"


def test_the_state_file_round_trips(tmp_path):
    saved = saved_search()
    state.save(tmp_path / "s1", saved)
    assert state.load(tmp_path / "s1") == saved
    assert state.load(tmp_path / "absent") is None


@pytest.mark.parametrize("fault", ["cut", "key_removed", "flipped", "another_search", "garbage"])
def test_a_state_file_that_does_not_prove_itself_is_one_line_never_resumed(tmp_path, fault):
    """#27's class of item 4: a state cut between its keys once resumed silently with today's
    defaults for the missing ones."""
    path = state.save(tmp_path / "s1", saved_search())
    data = path.read_bytes()
    if fault == "cut":
        path.write_bytes(data[: len(data) // 2])
    elif fault == "key_removed":  # whole JSON, but without a key, and no digest: an edit
        body = json.loads(data)["state"]
        del body["trials"]
        path.write_text(json.dumps(body))
    elif fault == "flipped":
        assert b'"trials": 4' in data
        path.write_bytes(data.replace(b'"trials": 4', b'"trials": 5'))
    elif fault == "another_search":
        state.save(tmp_path / "s2", state.SearchState("p2", "s2", saved_search().kept))
        path.write_bytes((tmp_path / "s2" / state.STATE_FILE).read_bytes())
    else:
        path.write_bytes(b"\xff\xfe not json")
    with pytest.raises(UsageError) as refused:
        state.load(tmp_path / "s1")
    line = str(refused.value)
    assert str(path) in line and "\n" not in line and state.REMEDY in line


@pytest.mark.parametrize(
    "override",
    ["hparams_search=ga_smoke", "hparams_search.scheduler.asha=false", "trials=4", "seed=0"],
)
def test_an_override_that_repeats_a_stored_value_is_accepted(override):
    assert resume(override).hparams_search.name == "ga_smoke"


@pytest.mark.parametrize(
    ("override", "stored"),
    [
        ("hparams_search=ga_tpe", "hparams_search=ga_smoke"),
        ("hparams_search.scheduler.asha=true", "hparams_search.scheduler.asha=false"),
        ("hparams_search.fixed={ga.generations: 40}", "hparams_search.fixed="),
        ("trials=8", "trials=4"),
        ("concurrency=1", "concurrency=2"),
        ("seed=3", "seed=0"),
        ("tracking.experiment=elsewhere", "tracking.experiment=null"),
    ],
)
def test_an_override_that_changes_a_stored_key_is_refused_in_one_line(override, stored):
    with pytest.raises(ConfigError) as caught:
        resume(override)
    line = one_line(caught.value)
    assert line is not None and "\n" not in line
    assert line.startswith(
        f"{override} is not allowed with resume=true: search s1 keeps the {stored}"
    )
    assert line.endswith("it started with (leave it out, or start a new search_id)")


def test_of_a_key_given_twice_the_last_counts():
    """``sparring tune <the first command> resume=true trials=8``: Hydra takes trials=8."""
    with pytest.raises(ConfigError, match=r"^trials=8 is not allowed"):
        resume("trials=4", "trials=8")
    assert resume("trials=8", "trials=4").trials == 4


def test_a_search_saved_before_its_keys_were_stored_resumes_with_the_given_keys():
    old = state.SearchState("parent-id", "s1", {})
    job = to_typed(compose_config("tune", *RESUME, "hparams_search=ga_smoke", "trials=6"))
    assert state.resumed(job, old, ["hparams_search=ga_smoke", "trials=6"]) == job


def test_the_end_of_a_search_closes_every_trial_with_its_last_objective(tmp_path):
    """Three children as a search leaves them: a finished run; a stopped one its trial closed
    (KILLED, no objective: it stopped before its end); a stopped one whose process Tune ended
    before the trial could record the stop (RUNNING). Each gets its last objective and step,
    the stopped ones the objective under its own name at their step, none stays RUNNING.
    A fourth, stopped, whose RUNNING run a later trial's session closed as an orphan (its
    process gone), is closed the same way; a fifth, cut by an interrupted search and rerun
    (its trial id reused by the rerun's run), is left as the interruption marked it. A sixth,
    cut by the interruption before Tune saved its trial (no record names it), says that a new
    trial ran in its place, not that it was rerun; a seventh, finished in that moment, says it
    is not in the search's results."""
    from sparring.runtime.tracking.runs import ENDED_TAG
    from sparring.tuning.runs import (
        INTERRUPTED_NOTE,
        UNSAVED_FINISHED_NOTE,
        UNSAVED_NOTE,
        close_trials,
    )

    client = MlflowClient(f"sqlite:///{tmp_path / 'mlflow.db'}")
    exp = client.create_experiment("evolve", artifact_location=(tmp_path / "a").as_uri())
    parent = client.create_run(exp).info.run_id

    def child(trial_id: str, status: str | None, tags=None, metrics=None) -> str:
        run_id = client.create_run(
            exp, tags={"mlflow.parentRunId": parent, "tune_trial": trial_id, **(tags or {})}
        ).info.run_id
        for key, value in (metrics or {}).items():
            client.log_metric(run_id, key, value, step=6)
        if status:
            client.set_terminated(run_id, status=status)
        return run_id

    objective = "champion_bb100_vs_mixed"
    done = child("t1", "FINISHED", metrics={objective: 54.07})
    closed = child("t2", "KILLED", tags={"sparring.stopped_by": "asha at step 2/6"})
    cut = child("t3", None)
    orphan = child("t4", "KILLED", tags={ENDED_TAG: "found RUNNING by run x with its driver gone"})
    rerun_before = child("t5", "KILLED", tags={ENDED_TAG: INTERRUPTED_NOTE})
    rerun = child("t5", "FINISHED", metrics={objective: 7.0})
    unsaved = child("t6", "KILLED", tags={ENDED_TAG: INTERRUPTED_NOTE})
    unsaved_done = child("t7", "FINISHED", metrics={objective: 9.5})
    records = [
        TrialRecord(1, "t1", {}, 54.07, "finished", 6),
        TrialRecord(2, "t2", {}, 49.49, "stopped", 2),
        TrialRecord(3, "t3", {}, 12.5, "stopped", 4),
        TrialRecord(4, "t4", {}, 3.25, "stopped", 2),
        TrialRecord(5, "t5", {}, 7.0, "finished", 6),
    ]
    close_trials(client, exp, parent, records, objective, 6)
    for run_id, record, status in (
        (done, records[0], "FINISHED"),
        (closed, records[1], "KILLED"),
        (cut, records[2], "KILLED"),
        (orphan, records[3], "KILLED"),
        (rerun, records[4], "FINISHED"),
    ):
        run = client.get_run(run_id)
        assert run.info.status == status
        assert run.data.tags["trial_state"] == record.state
        assert run.data.metrics["trial_objective"] == record.objective
        assert run.data.metrics["trial_step"] == record.step
        history = client.get_metric_history(run_id, objective)
        assert [(m.step, m.value) for m in history] == [
            (6 if status == "FINISHED" else record.step, record.objective)
        ]
    assert client.get_run(cut).data.tags["sparring.stopped_by"] == "asha at step 4/6"
    assert client.get_run(orphan).data.tags["sparring.stopped_by"] == "asha at step 2/6"
    assert "trial_state" not in client.get_run(rerun_before).data.tags
    assert client.get_run(rerun_before).data.tags[ENDED_TAG] == INTERRUPTED_NOTE
    assert client.get_run(unsaved).data.tags[ENDED_TAG] == UNSAVED_NOTE
    assert "trial_state" not in client.get_run(unsaved).data.tags
    assert client.get_run(unsaved_done).data.tags[ENDED_TAG] == UNSAVED_FINISHED_NOTE
    assert "trial_objective" not in client.get_run(unsaved_done).data.metrics


def test_a_search_whose_every_trial_failed_is_failed_and_exits_1(tmp_path, capsys):
    """No trial finished: no best config is written, the parent run is FAILED (not FINISHED)
    and the command's exit status is 1; one finished trial is enough for 0."""
    from sparring.pipelines.tune import exit_status
    from sparring.tuning.report import finish

    client = MlflowClient(f"sqlite:///{tmp_path / 'mlflow.db'}")
    exp = client.create_experiment("evolve", artifact_location=(tmp_path / "a").as_uri())
    job = to_typed(
        compose_config(
            "tune", *STARTED, "search_id=s1", f"storage={tmp_path}", f"best_dir={tmp_path}/best"
        )
    )
    failed = [TrialRecord(n, f"t{n}", {}, None, "failed", 0) for n in (1, 2)]
    parent = client.create_run(exp).info.run_id
    out = finish(client, parent, exp, job, failed, "s1", "champion_bb100_vs_mixed", True)
    assert client.get_run(parent).info.status == "FAILED"
    assert out["best"] is None and exit_status(out) == 1
    assert not (tmp_path / "best").exists()
    assert "no trial finished (2 of 2 failed)" in capsys.readouterr().out
    params = {"ga.p_mutation": 0.1}
    done = [*failed, TrialRecord(3, "t3", params, 5.0, "finished", 6)]
    parent = client.create_run(exp).info.run_id
    out = finish(client, parent, exp, job, done, "s1", "champion_bb100_vs_mixed", True)
    assert client.get_run(parent).info.status == "FINISHED" and exit_status(out) == 0


def test_a_trial_cut_by_an_interruption_and_rerun_is_recorded_once(tmp_path):
    """#47 item 7: a resumed search reruns a cut trial under the same trial id, in a new run.
    Two trials were cut at their first report by the search's graceful stop (Ctrl-C, SIGTERM),
    which Tune delivers as an ASHA stop (KILLED, ``sparring.stopped_by``): one's rerun
    finished, the other's was then stopped by ASHA for real; a third ran once. The cut runs
    stay KILLED, say they were cut, lose the stop tag the stop gave them and get neither a
    ``trial_state`` nor another run's objective; the reruns are the trials' records, and
    ``compare --sweep`` lists each trial once, by its record."""
    from sparring.reporting.compare import compare
    from sparring.runtime.tracking.runs import ENDED_TAG, STOPPED_TAG
    from sparring.tuning.runs import INTERRUPTED_NOTE, close_trials

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    client = MlflowClient(uri)
    exp = client.create_experiment("evolve", artifact_location=(tmp_path / "a").as_uri())
    parent = client.create_run(
        exp, tags={"sweep_parent": "true", "sweep_id": "s1"}, run_name="s1"
    ).info.run_id
    objective = "champion_bb100_vs_mixed"

    def child(trial_id: str, status: str, start: int, tags=None, metrics=None) -> str:
        tags = {
            "mlflow.parentRunId": parent,
            "sweep_id": "s1",
            "tune_trial": trial_id,
            **(tags or {}),
        }
        run_id = client.create_run(exp, start_time=start, tags=tags).info.run_id
        for key, (value, step) in (metrics or {}).items():
            client.log_metric(run_id, key, value, step=step)
        client.set_terminated(run_id, status=status)
        return run_id

    cut_by_stop = {STOPPED_TAG: "asha at step 1/6"}
    first_generation = {"best_fitness": (3.0, 1)}
    cut1 = child("t1", "KILLED", 1000, cut_by_stop, first_generation)
    cut2 = child("t2", "KILLED", 1100, cut_by_stop, first_generation)
    once = child("t3", "FINISHED", 1200, metrics={objective: (20.0, 6)})
    rerun1 = child("t1", "FINISHED", 2000, metrics={objective: (54.07, 6)})
    rerun2 = child("t2", "KILLED", 2100, {STOPPED_TAG: "asha at step 2/6"})
    records = [
        TrialRecord(1, "t1", {}, 54.07, "finished", 6),
        TrialRecord(2, "t2", {}, 30.0, "stopped", 2),
        TrialRecord(3, "t3", {}, 20.0, "finished", 6),
    ]
    close_trials(client, exp, parent, records, objective, 6)
    for cut in (cut1, cut2):
        run = client.get_run(cut)
        assert run.info.status == "KILLED"
        assert run.data.tags[ENDED_TAG] == INTERRUPTED_NOTE
        assert STOPPED_TAG not in run.data.tags and "trial_state" not in run.data.tags
        assert set(run.data.metrics) == {"best_fitness"}  # no objective of its rerun's
    for run_id, record, status in (
        (rerun1, records[0], "FINISHED"),
        (rerun2, records[1], "KILLED"),
    ):
        run = client.get_run(run_id)
        assert run.info.status == status and ENDED_TAG not in run.data.tags
        assert run.data.tags["trial_state"] == record.state
        assert run.data.metrics["trial_objective"] == record.objective
        assert run.data.metrics[objective] == record.objective
    assert client.get_run(rerun2).data.tags[STOPPED_TAG] == "asha at step 2/6"
    table = compare(uri, None, objective, sweep="s1", output_dir=tmp_path / "cmp")
    assert [r["run_id"] for r in table.runs] == [rerun1, rerun2, once]
