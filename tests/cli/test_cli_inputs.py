"""Every ``sparring`` subcommand refuses bad input the same way: a non-zero exit, one line on
stderr, no traceback, and nothing written."""

from __future__ import annotations

import socket
import sqlite3
import sys
from pathlib import Path

import pytest

from sparring.cli import build_parser, main
from sparring.poker.acpc import gamedef_path
from tests.helpers.commands import cli_argv, pipeline_argv, run_command


def leaf_commands() -> set[tuple[str, ...]]:
    """Every runnable subcommand path, e.g. ("poker", "replay")."""
    import argparse

    def walk(parser: argparse.ArgumentParser, path: tuple[str, ...]) -> set[tuple[str, ...]]:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            return {path}
        found: set[tuple[str, ...]] = set()
        for name, child in subs[0].choices.items():
            found |= walk(child, (*path, name))
        return found

    return walk(build_parser(), ())


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("inputs")
    text = root / "notes.txt"
    text.write_text("not a database\n")
    newer = root / "newer.db"
    conn = sqlite3.connect(newer)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    # Not a chmod-ed directory: the tests run as root, who may write there anyway.
    locked = Path("/sys")
    return {"text": text, "newer": newer, "dir": root, "locked": locked}


GAME2 = str(gamedef_path(2))


def free_port() -> int:
    """A port nothing listens on (bound and let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def bad_inputs(files) -> list[tuple[tuple[str, ...], list[str], str]]:
    """(command, arguments, what the line must say): at least one case per subcommand."""
    text, newer, d, locked = files["text"], files["newer"], files["dir"], files["locked"]
    return [
        (("equity",), ["AsKs", "--seed", "-1"], "--seed: -1 is not allowed"),
        (("equity",), ["AsKs", "--trials", "many"], "'many' is not allowed"),
        (("poker", "replay"), ["--deals", str(d / "missing")], "no such directory"),
        (("poker", "replay"), ["--deals", str(text)], "a file, expected a directory"),
        (("poker", "replay"), ["--deals", str(d), "--hero", "mixed"], "invalid choice: 'mixed'"),
        (("poker", "replay"), ["--deals", str(d), "--deal", "-3"], "--deal: -3 is not allowed"),
        (("poker", "acpc-client"), ["--game", str(text), "127.0.0.1", "9"],
         "line 1: 'not a database' before GAMEDEF"),
        (("poker", "acpc-client"), ["--game", str(d / "none.game"), "127.0.0.1", "9"],
         "cannot be read"),
        (("poker", "acpc-client"), ["--game", GAME2, "--agent", "mus@default", "127.0.0.1", "9"],
         "plays mus, not poker"),
        (("poker", "acpc-client"), ["--game", GAME2, "--agent", "nope", "127.0.0.1", "9"],
         "--agent=nope is not allowed"),
        (("poker", "acpc-client"), ["--game", GAME2, "--agent", "champion@champion",
                                    "--tracking-uri", "sqlite:///mlfow.db", "127.0.0.1", "9"],
         "--tracking-uri=sqlite:///mlfow.db: no MLflow store at mlfow.db"),
        (("poker", "acpc-client"), ["--game", GAME2, "127.0.0.1", "70000"],
         "port: 70000 is not allowed"),
        (("poker", "acpc-client"), ["--game", GAME2, "127.0.0.1", str(free_port())],
         "cannot reach the dealer at 127.0.0.1"),
        (("play", "flagbots"), ["--map", "bogus"], "choose from 'default', 'wall_row'"),
        (("play", "flagbots"), ["--searcher", "deep_blue"], "invalid choice: 'deep_blue'"),
        (("play", "flagbots"), ["--time", "nan"], "--time: nan is not allowed"),
        (("play", "flagbots"), ["--position", "5/1N1/5 s 9"], "every row must have 5 cells"),
        (("play", "flagbots"), ["--map", "wall_row", "--position", "5/5/5/5/5 s 9"],
         "not allowed with argument --map"),
        (("play", "mus"), ["--store", str(text)], "not an SQLite database"),
        (("play", "mus"), ["--store", str(newer)], "newer than this code"),
        (("play", "mus"), ["--store", str(d)], "a directory, expected a file path"),
        (("play", "mus"), ["--hands", "0"], "--hands: 0 is not allowed"),
        (("mus", "simulate"), ["--bluff", "nan"], "--bluff: nan is not allowed"),
        (("mus", "simulate"), ["--bluff", "5"], "--bluff: 5 is not allowed: expected a number"),
        (("mus", "simulate"), ["--seed", "-2"], "--seed: -2 is not allowed"),
        (("mus", "simulate"), ["--output", str(locked / "x.parquet")], "is not writable"),
        (("mus", "simulate"), ["--output", str(text / "x.parquet")], "is a file, not a dir"),
        (("mus", "profile"), ["--store", str(text), "--player", "a"], "not an SQLite database"),
        (("mus", "profile"), ["--store", str(d / "no.db"), "--player", "a"], "no such file"),
        (("eleusis", "referee"), ["--deck", "bogus", "--", "true"], "unknown family 'bogus'"),
        (("eleusis", "referee"), ["--deck", "uniform", "--seed", "-1"], "--seed: -1 is not"),
        (("eleusis", "scientist"), ["--name", "genius"], "invalid choice: 'genius'"),
        (("compare",), ["evolve", "--metric", "x", "--tracking-uri", "sqlite:///" + str(text)],
         "not an SQLite database"),
        (("compare",), ["evolve", "--metric", "x", "--tracking-uri", "http://127.0.0.1:9"],
         "no MLflow server answers"),
        (("results",), ["--tracking-uri", f"sqlite:///{d}"], "is a directory"),
        (("results",), ["--tracking-uri", "sqlite:///mlfow.db"],  # the flag, as it was typed
         "results: error: --tracking-uri=sqlite:///mlfow.db: no MLflow store at mlfow.db"),
        (("retrain", "history"), ["--tracking-uri", f"sqlite:///{d}"], "is a directory"),
        (("tune",), ["hparams_search=nope"],
         "hparams_search=nope is not allowed: expected one of eleusis_tpe"),
        (("tune",), ["search=ga_tpe"], "error: search= was renamed: use hparams_search=ga_tpe"),
        (("tune",), ["search.algorithm=tpe"],
         "error: search.algorithm= was renamed: use hparams_search.algorithm=tpe"),
        (("tune",), ["hparams_search=search_tpe"],
         "error: hparams_search=search_tpe was renamed: use hparams_search=flagbots_tpe"),
        (("tune",), ["pipeline=search_bench"],
         "error: pipeline=search_bench was renamed: use pipeline=flagbots_bench"),
        # (a bad agent spec, checked once the config is typed: tests/config/test_command_line.py)
        (("arena",), ["kind=knockout"], "kind=knockout is not allowed: expected one of gauntlet"),
        (("arena",), ["units=many"], "units=many is not allowed: expected an integer"),
        (("cluster", "config"), ["--image", "ami-1"], "--image=ami-1 is not allowed: expected"),
        (("cluster", "config"), ["--image", "ami-0abc12345def67890", "-o", str(d)],
         "a directory, expected a file path"),
        (("submit",), ["--address", "http://127.0.0.1:9", "evolve"],
         "deals.root=data/deals is a relative path"),
        (("submit",), ["bogus"], "pipeline=bogus is not allowed: expected one of arena, compare"),
        (("submit",), ["search_bench"], "search_bench was renamed: use flagbots_bench"),
        (("submit",), ["equity", "output=/tmp/x.parquet", "trials=0"], "trials=0 is not allowed"),
        (("ray", "start"), ["--num-cpus", "0"], "--num-cpus: 0 is not allowed"),
        (("ray", "status"), ["--verbose"], "unrecognized arguments: --verbose"),
        (("ray", "stop"), ["now"], "unrecognized arguments: now"),
    ]  # fmt: skip


def run_in_process(argv: list[str], capsys) -> tuple[int, str]:
    """``sparring <argv>`` in this process: (exit status, stderr). Any exception other than the
    command's own exit escapes, so a traceback fails the test."""
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse's own errors
        status = exc.code if isinstance(exc.code, int) else 1
    return status, capsys.readouterr().err


def test_every_subcommand_has_a_bad_input_case(files):
    assert {command for command, _, _ in bad_inputs(files)} == leaf_commands()


def test_bad_inputs_exit_2_with_one_line_and_no_traceback(files, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    failures = []
    for command, args, message in bad_inputs(files):
        status, err = run_in_process([*command, *args], capsys)
        lines = err.strip().splitlines()
        if not (status == 2 and len(lines) == 1 and message in lines[0]):
            failures.append((command, args, status, err[-600:]))
    assert not failures, failures
    assert not any(tmp_path.iterdir())  # nothing was written


@pytest.mark.parametrize(
    ("command", "args", "line"),
    [
        (cli_argv("tune"), ["search=ga_tpe", "trials=2"],
         "error: search= was renamed: use hparams_search=ga_tpe"),
        (pipeline_argv("tune"), ["hparams_search=ga_smoke", "search.algorithm=tpe"],
         "error: search.algorithm= was renamed: use hparams_search.algorithm=tpe"),
        (pipeline_argv("tune"), ["+search.scheduler.asha=false"],
         "error: search.scheduler.asha= was renamed: use +hparams_search.scheduler.asha=false"),
        (pipeline_argv("flagbots_bench"), ["-m", "sweep=search_configs"],
         "error: sweep=search_configs was renamed: use sweep=flagbots_configs"),
        (pipeline_argv("search_bench"), ["depths=[1]"],
         "error: pipelines/search_bench.py was renamed: use pipelines/flagbots_bench.py "
         "(its config: conf/flagbots_bench.yaml)"),
    ],
)  # fmt: skip
def test_the_old_search_group_is_refused_naming_the_new_one(command, args, line, tmp_path):
    """``sparring tune`` and ``python pipelines/tune.py`` as a user runs them: the old spelling
    of the search-space group gets one line naming ``hparams_search``, exit 2, before any Ray
    work and with nothing written."""
    out = run_command([*command, *args], cwd=tmp_path, timeout=120)
    assert out.returncode == 2, out.stderr[-2000:]
    assert out.stderr.strip().splitlines() == [line], out.stderr[-2000:]
    assert not any(tmp_path.iterdir())  # no Ray session dir, no outputs, no MLflow store


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (b"HTTP/1.1 400 Bad Request\r\n\r\n",
         "it sent 'HTTP/1.1 400 Bad Request', not a match state"),
        (b"", "it closed the connection without sending a match state"),
    ],
)  # fmt: skip
def test_an_acpc_client_pointed_at_a_port_another_program_took_is_one_line(reply, said, capsys):
    """Not a dealer at the address (a web server's answer, or a listener that closes at
    once): one line naming what it did, exit 2, before any hand."""
    import threading

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)

        def answer() -> None:
            conn, _ = server.accept()
            with conn:
                conn.recv(100)
                conn.sendall(reply)

        threading.Thread(target=answer, daemon=True).start()
        port = server.getsockname()[1]
        status, err = run_in_process(
            ["poker", "acpc-client", "--game", GAME2, "127.0.0.1", str(port)], capsys
        )
    assert status == 2
    assert err.strip().splitlines() == [
        f"sparring poker: error: 127.0.0.1:{port} is not an ACPC dealer: {said}"
    ]


def test_a_config_file_that_is_not_yaml_is_one_line_naming_it(tmp_path):
    """A damaged ``conf/*.yaml`` (a checkout's, edited by hand) is one line with the file, the
    line and what the parser expected, exit 2: not Hydra's 80-line traceback."""
    import shutil

    from tests.helpers.commands import ROOT

    for part in ("conf", "pipelines"):
        shutil.copytree(ROOT / part, tmp_path / part)
    with open(tmp_path / "conf" / "equity.yaml", "a") as f:
        f.write("trials: [1, 2\n")
    done = run_command([sys.executable, str(tmp_path / "pipelines" / "equity.py")], cwd=tmp_path,
                       timeout=120)  # fmt: skip
    [line] = done.stderr.strip().splitlines()
    assert done.returncode == 2 and line.startswith(f"error: {tmp_path}/conf/equity.yaml line ")
    assert "not valid YAML (expected ',' or ']'" in line
