"""The `sparring` command as a user runs it."""

import pytest

from sparring.cli import main
from tests.helpers.commands import run_cli


def test_equity_prints_equity_win_tie_and_stderr(capsys):
    assert (
        main(["equity", "AsKs", "--board", "Ah 7c 2d", "--opponents", "9", "--trials", "20000"])
        == 0
    )
    out = capsys.readouterr().out
    assert "board Ah7c2d" in out and "vs 9 random hands" in out
    for word in ("equity", "win", "tie", "s.e."):
        assert word in out


def test_exact_on_the_river(capsys):
    assert main(["equity", "AsKs", "--board", "AhKd2c3c4d"]) == 0
    assert "exact enumeration" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["equity", "AsKx"], "unknown suit 'x'"),
        (["equity", "AsKs", "--board", "As7c2d"], "duplicate card As in hero and board"),
        (["equity", "AsK"], "odd number of characters"),
        (["equity", "AsKs", "--opponents", "23"], "--opponents: 23 is not allowed: expected an"),
        (["equity", "AsKs", "--trials", "0"], "--trials: 0 is not allowed: expected an integer"),
    ],
)
def test_bad_input_exits_2_with_one_line(args, message):
    proc = run_cli(*args, timeout=120)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in proc.stderr
