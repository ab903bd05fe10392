"""Pipelines as a user runs them: a bad input is one line and exit 2, Ctrl-C is one line, exit
130 and a KILLED MLflow run."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from tests.helpers.commands import (
    ROOT,
    cli_argv,
    pipeline_argv,
    run_cli,
    run_command,
    run_pipeline,
    start_pipeline,
)


def not_a_database(tmp_path: Path) -> str:
    path = tmp_path / "notes.db"
    path.write_text("not a database\n")
    return f"tracking.uri=sqlite:///{path}"


def _not_executable(tmp_path: Path) -> Path:
    bot = tmp_path / "bot.sh"
    bot.write_text("#!/bin/sh\necho hi\n")  # no x bit
    return bot


CASES = [
    ("evolve", ["ga.population=0"], "ga.population=0 is not allowed: expected an integer in 4"),
    (
        "equity",
        ["tirals=10"],
        "tirals is not a known key: allowed keys are objective, direction, seed, trials",
    ),
    ("handgen", ["ray=bogus"], "ray=bogus is not allowed: expected one of cluster, embedded"),
    ("validate", ["tracking.uri=sqlite:////no/such/dir/m.db"], "the directory /no/such/dir does"),
    ("compare", [not_a_database], "is not an SQLite database"),
    (
        "compare",
        [
            "experiment=evolve",
            "metric=champion_bb100",
            lambda tmp: f"tracking.uri=sqlite:///{tmp}/m.db",
        ],
        "no MLflow store at",  # compare reads a store: it does not make an empty one
    ),
    ("flagbots_bench", ["tracking.uri=http://127.0.0.1:9"], "no MLflow server answers"),
    ("arena", ["agent=alphago"], "agent=alphago is not allowed: expected an agent spec: one of"),
    ("arena", ["game=chess"],
     "game=chess is not allowed: expected a registered game (poker, mus, flagbots, eleusis) "
     "or openspiel:<game>"),
    ("arena", ["agent=cmd:/no/such/bot"], "a program that exists (/no/such/bot: no such program)"),
    (
        "arena",
        [lambda tmp: f"agent=cmd:{_not_executable(tmp)}"],
        "an executable program (",
    ),
    ("arena", ["limits.move_s=-1"], "limits.move_s=-1.0 is not allowed: expected > 0"),
    ("arena", ["units=-3"], "units=-3 is not allowed: expected an integer in 1..100000"),
]  # the other pipelines' values are checked in process (tests/config/test_schemas.py)


@pytest.mark.parametrize(("name", "args", "message"), CASES)
def test_a_bad_input_is_one_line_and_exit_2_before_any_work(tmp_path, name, args, message):
    args = [a(tmp_path) if callable(a) else a for a in args]
    proc = run_pipeline(name, *args, cwd=tmp_path, timeout=180)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert message in lines[0]
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "data").exists() and not (tmp_path / "mlflow.db").exists()


def _partial_table(tmp: Path) -> Path:
    """The shipped preflop table cut to its first 100 rows (of 1,521)."""
    import pyarrow.parquet as pq

    from sparring.poker.preflop import default_table_path

    path = tmp / "partial.parquet"
    pq.write_table(pq.read_table(default_table_path()).slice(0, 100), path)
    return path


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda tmp: _not_executable(tmp), "not a readable Parquet file"),
        (_partial_table, "the preflop table is incomplete"),
    ],
)
def test_a_preflop_table_that_is_not_one_is_refused_before_any_work(tmp_path, make, said):
    """handgen's ``preflop.table`` is read before Ray and the MLflow run start (it was read
    by the first task). The shipped table passes the same check (the control)."""
    from sparring.config import to_typed
    from sparring.launch.preflight import check_handgen
    from sparring.poker.preflop import default_table_path
    from tests.helpers.configs import compose_config

    table = make(tmp_path)
    proc = run_pipeline("handgen", f"preflop.table={table}", cwd=tmp_path, timeout=180)
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith(
        f"error: preflop.table={table} is not allowed: expected a complete preflop_equity "
        "table, as pipelines/equity.py writes it ("
    ), line
    assert said in line
    assert not (tmp_path / "data").exists() and not (tmp_path / "mlflow.db").exists()
    check_handgen(to_typed(compose_config("handgen", f"preflop.table={default_table_path()}")))


# Seconds of imports each (numba ~0.3 s, and every kernel module behind it): the check path
# reads the domains' names and limits from their kernel-free modules (``poker.catalog``,
# ``flagbots.searchers``, ``eleusis.roster``, ...).
HEAVY = ("ray", "mlflow", "pandas", "optuna", "numba", "scipy")


def _imported(stderr: str) -> set[str]:
    """Top-level packages named in ``python -X importtime`` output."""
    lines = (line.rsplit("|", 1)[-1].strip() for line in stderr.splitlines() if "|" in line)
    return {name.split(".")[0] for name in lines}


@pytest.mark.parametrize(
    ("name", "args"),
    [*[(name, args) for name, args, _ in CASES], ("tune", ["--help"]), ("evolve", ["--help"])],
)
def test_help_and_bad_input_import_nothing_heavy(tmp_path, name, args):
    """Check first, import later: the answer comes before the pipeline's module is imported."""
    args = [a(tmp_path) if callable(a) else a for a in args]
    argv = pipeline_argv(name, *args)
    argv[1:1] = ["-X", "importtime"]  # python -X importtime pipelines/<name>.py ...
    proc = run_command(argv, cwd=tmp_path, timeout=180)
    assert proc.returncode == (0 if args == ["--help"] else 2), proc.stderr[-2000:]
    assert "hydra" in _imported(proc.stderr)  # the listing is what it claims to be
    assert not _imported(proc.stderr) & set(HEAVY)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--help"], None),  # every domain's subcommands registered: their choices and limits
        (["eleusis", "scientist", "--name", "oracel"], "argument --name: invalid choice"),
        (["eleusis", "referee", "--deck", "spike", "--harma", "0"], "expected an integer in 1.."),
        (["play", "flagbots", "--searcher", "alphabta"], "argument --searcher: invalid choice"),
        (["equity", "AsKs", "--opponents", "23"], "expected an integer in 1..22"),
    ],
)
def test_sparring_help_and_bad_arguments_import_nothing_heavy(tmp_path, args, said):
    """The ``sparring`` command answers ``--help`` and refuses a bad choice or limit before
    any kernel module is imported."""
    argv = [sys.executable, "-X", "importtime", *cli_argv(*args)[1:]]
    proc = run_command(argv, cwd=tmp_path, timeout=180)
    assert proc.returncode == (0 if said is None else 2), proc.stderr[-2000:]
    errors = [line for line in proc.stderr.splitlines() if "error:" in line]
    assert said is None or (len(errors) == 1 and said in errors[0]), errors
    assert "argparse" in _imported(proc.stderr)  # the listing is what it claims to be
    assert not _imported(proc.stderr) & set(HEAVY)


def test_sparring_debug_shows_the_whole_traceback(tmp_path):
    proc = run_pipeline(
        "evolve", "ga.population=0", cwd=tmp_path, env={"SPARRING_DEBUG": "1"}, timeout=180
    )
    assert proc.returncode != 0
    assert "Traceback" in proc.stderr and "ga.population=0 is not allowed" in proc.stderr


@pytest.fixture(scope="module")
def deals_root(tmp_path_factory):
    """One deal set for both interrupted runs (the second reuses it)."""
    return tmp_path_factory.mktemp("deals")


@pytest.mark.parametrize(
    ("resume", "said"),
    [("false", "interrupted"), ("true", "interrupted; run the same command again to resume")],
)
def test_ctrl_c_is_one_line_exit_130_and_a_killed_run(tmp_path, deals_root, resume, said):
    db = tmp_path / "m.db"
    proc = start_pipeline(
        "evolve",
        "table_size=6",
        "ga.population=8",
        "ga.generations=1000",
        "deals.train=20",
        "deals.heldout=10",
        "deals.equity_trials=20",
        f"deals.root={deals_root}",
        "registry.register=false",
        f"resume={resume}",
        f"tracking.uri=sqlite:///{db}",
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 150
        for line in proc.stdout:  # wait until generations are being run
            if line.startswith("gen 1/") or time.monotonic() > deadline:
                break
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == said
    assert "Traceback" not in err
    client = MlflowClient(f"sqlite:///{db}")
    runs = client.search_runs([client.get_experiment_by_name("evolve").experiment_id])
    assert [r.info.status for r in runs] == ["KILLED"]


def test_help_lists_only_the_groups_the_pipeline_takes(tmp_path):
    """``sparring tune --help``: the search's groups, not the schemas nor other pipelines'
    sweeps; evolve's lists its own sweep preset and no other pipeline's."""
    tune = run_cli("tune", "--help", cwd=tmp_path, timeout=120)
    assert tune.returncode == 0, tune.stderr
    groups = tune.stdout.split("== Configuration groups")[1].split("== Config ==")[0]
    named = {line.split(":")[0].strip() for line in groups.splitlines()[1:] if ":" in line}
    assert named == {"hparams_search", "ray", "tracking"}
    assert "ga_smoke" in groups and "local" in groups
    assert "hparams_search:\n  name: ga_tpe" in tune.stdout  # the config, composed
    assert "A hyperparameter search" in tune.stdout  # what the command does
    evolve = run_pipeline("evolve", "--help", "ga.population=7", cwd=tmp_path, timeout=180)
    assert evolve.returncode == 0, evolve.stderr
    assert "  sweep:    ga_operators\n" in evolve.stdout  # its own preset only
    assert "population: 7" in evolve.stdout  # overrides are applied to what is shown


def test_sweep_presets_each_name_their_pipeline():
    """The help's sweep list finds a preset by its usage line: every preset has one."""
    from sparring.launch.help import sweep_presets

    conf = ROOT / "conf"
    found = [
        p for name in (path.stem for path in conf.glob("*.yaml")) for p in sweep_presets(conf, name)
    ]
    assert sorted(found) == sorted(path.stem for path in (conf / "sweep").glob("*.yaml"))


def test_help_to_a_reader_that_stops_early_is_quiet(tmp_path):
    """``| head``: the reader leaves; no error line (it once said the MLflow server was lost)."""
    for command in ("-m sparring.cli tune --help", "pipelines/evolve.py --help"):
        proc = subprocess.run(  # `true` has left before the help is written: always a broken pipe
            f"{sys.executable} {command} | true; echo ${{PIPESTATUS[0]}}",
            shell=True,
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
            executable="/bin/bash",
        )
        assert proc.stdout == "141\n", proc.stdout  # as `yes | true` ends
        assert proc.stderr == "", proc.stderr
