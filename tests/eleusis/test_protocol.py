"""The line protocol: a full game between our referee and our scientist, and bad lines."""

import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sparring.cli import main as cli
from sparring.eleusis.decks import make_deck
from sparring.eleusis.env import EleusisGame
from sparring.eleusis.protocol import ProtocolError, parse_feedback, parse_guess, referee
from sparring.eleusis.scientists import Scientist
from sparring.runtime.programs import jail
from sparring.runtime.programs.keeper import running as alive
from tests.helpers.commands import cli_argv, run_cli
from tests.helpers.docs import page, section

SCIENTIST = cli_argv("eleusis", "scientist")  # a command line, also for the referee to start


def test_referee_and_scientist_play_a_full_game_over_pipes():
    proc = run_cli(
        "eleusis",
        "referee",
        "--deck",
        "spike:alpha=0.8",
        "--seed",
        "2",
        "--harma",
        "20",
        "--",
        *SCIENTIST,
        "--name",
        "em_greedy",
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("finished: ")
    # The same game in process gives the same number of guesses.
    game, sci = EleusisGame(make_deck("spike:alpha=0.8", 2), 2, harma=20), Scientist("em_greedy")
    while not game.over:
        sci.learn(game.guess(sci.guess()).code)
    assert f"finished: {game.guesses} guesses" in proc.stdout


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("Q 3\n", "got 'Q 3'"),
        ("H 14\n", "got 'H 14'"),
        ("H12\n", "got 'H12'"),
        ("\n", "got ''"),
        ("H 12 extra\n", "got 'H 12 extra'"),
    ],
)
def test_malformed_guesses_end_the_game_as_invalid(line, message):
    game = EleusisGame(make_deck("spike:alpha=0.5", 1), 1)
    sent = []
    lines = iter(["C 1\n", line])
    result = referee(game, lambda: next(lines), sent.append)
    assert result.status == "invalid" and result.guesses == 1
    assert message in result.message and len(sent) == 1


def test_a_scientist_that_stops_early_is_invalid():
    result = referee(EleusisGame(make_deck("point_mass", 1), 1), lambda: "", print)
    assert result.status == "invalid" and "stopped before the game was over" in result.message


def test_cap_gives_dnf():
    game = EleusisGame(make_deck("uniform"), 0, harma=5, cap=50)
    sci = Scientist("frequency")

    def read():
        return f"{'CDHS'[sci.guess() // 13]} {sci._last % 13 + 1}\n"

    def write(line):
        parts = line.split()
        sci.learn(int(parts[2]) + 2 * int(parts[3]))

    result = referee(game, read, write)
    assert result.status == "dnf" and result.guesses == 50


def test_parsers():
    assert parse_guess("H 12\n") == 13 * 2 + 11
    assert parse_feedback("H 12 1 0\n", 13 * 2 + 11) == 1
    with pytest.raises(ProtocolError, match="is not about the guess"):
        parse_feedback("C 1 1 1", 13 * 2 + 11)
    with pytest.raises(ProtocolError, match="expected '<suit> <number> <0|1> <0|1>'"):
        parse_feedback("H 12 yes no", 13 * 2 + 11)


def test_scientist_rejects_malformed_feedback():
    proc = run_cli("eleusis", "scientist", "--name", "frequency", input="nonsense\n", timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == "C 1\n"
    assert "expected '<suit> <number> <0|1> <0|1>', got 'nonsense'" in proc.stderr


def test_cli_errors(capsys):
    assert cli(["eleusis", "referee", "--deck", "nope", "--", "cat"]) == 2
    assert "unknown family 'nope'" in capsys.readouterr().err
    assert cli(["eleusis", "scientist", "--name", "oracle"]) == 2
    assert "give --deck" in capsys.readouterr().err


def test_the_informed_reference_speaks_the_protocol_given_the_family(capsys):
    assert cli(["eleusis", "scientist", "--name", "informed"]) == 2
    assert "give --deck" in capsys.readouterr().err
    assert cli(["eleusis", "scientist", "--name", "informed", "--deck", "zipf:s=2"]) == 2
    assert "finitely many decks" in capsys.readouterr().err
    proc = run_cli(
        "eleusis", "scientist", "--name", "informed", "--deck", "best_ne_mode",
        input="D 6 1 0\n", timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert set(proc.stdout.split("\n")[:2]) <= {"D 6", "D 7"}  # d = 0.1, never the mode C 1


def referee_cli(*args, timeout=120):
    return run_cli("eleusis", "referee", *args, timeout=timeout)


def test_a_scientist_that_never_moves_loses_on_time():
    proc = referee_cli(
        "--deck", "uniform", "--move-timeout", "0.5", "--start-timeout", "0.5", "--", "sleep", "300"
    )
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert "lost on time after 0 guesses: no move within 0.5 s" in proc.stdout


def test_the_whole_game_has_a_limit_too():
    slow = [sys.executable, "-c", "import time\nwhile True:\n    print('H 1', flush=True)\n"
            "    input()\n    time.sleep(0.05)"]  # fmt: skip
    proc = referee_cli("--deck", "uniform", "--harma", "10000", "--game-timeout", "1", "--", *slow)
    assert proc.returncode == 4 and "the game's time limit" in proc.stdout


def test_a_scientist_that_never_reads_cannot_deadlock_the_referee():
    proc = referee_cli(
        "--deck", "uniform", "--harma", "100000", "--cap", "200000", "--", "yes", "H 1"
    )
    assert proc.returncode == 0 and "200000 guesses" in proc.stdout


def test_a_huge_line_is_refused_quoted_short_without_reading_it_all():
    flood = [sys.executable, "-c", "import sys\nsys.stdout.write('H' * 200_000_000)"]
    proc = referee_cli("--deck", "uniform", "--", *flood)
    assert proc.returncode == 3, proc.stderr
    line = proc.stdout.strip()
    assert "a line longer than 1024 bytes" in line and len(line) < 250


def test_non_utf8_output_ends_the_game_as_invalid():
    proc = referee_cli("--deck", "uniform", "--", "printf", "\\xff\\xfe\\n")
    assert proc.returncode == 3 and "not UTF-8" in proc.stdout


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "SIGHUP", "SIGKILL"])
def test_ending_the_referee_ends_the_scientist_and_all_it_started(how, sandbox):
    """#27 item 11: the scientist and a child it started in a session of its own (setsid)
    are both gone after the referee ends, however it ends (a kill -9 included: the keeper
    sees its starter gone; in the sandbox, its lifeline cut)."""
    if sandbox == "bwrap" and jail.problem():
        pytest.skip(jail.problem())
    marker = f"scientist-{secrets.token_hex(6)}"
    program = [
        sys.executable, "-c",
        "import os, time\nif os.fork() == 0:\n    os.setsid()\ntime.sleep(300)", marker,
    ]  # fmt: skip
    ref = subprocess.Popen(
        cli_argv("eleusis", "referee", "--sandbox", sandbox, "--deck", "uniform", "--", *program),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while len(started := running_with(marker)) < 2:
        assert time.monotonic() < deadline, "the scientist never started"
        time.sleep(0.05)
    os.kill(ref.pid, getattr(signal, how))
    ref.wait(timeout=30)
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in started) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [pid for pid in started if alive(pid)]
    assert not left, f"{left} still run after {how} to the referee"


def running_with(marker: str) -> list[int]:
    """Live processes whose command line holds ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if marker.encode() in Path(f"/proc/{entry}/cmdline").read_bytes() and alive(
                    int(entry)
                ):
                    found.append(int(entry))
            except OSError:
                continue
    return found


def documented_transcript() -> list[tuple[str, str]]:
    """The example game of the wire protocols page (docs/reference/protocols.md, Eleusis's own
    protocol): (the program's line, the referee's line) per guess."""
    text = section(page("reference/protocols.md"), "## Eleusis's own protocol")
    block = text.split("A real game (", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    return [(line[:8].strip(), line[8:].strip()) for line in block.splitlines()]


def test_the_documented_transcript_is_a_real_game_the_protocol_accepts():
    transcript = documented_transcript()
    assert len(transcript) == 8
    for guess, answer in transcript:
        parse_feedback(answer, parse_guess(guess))  # each line as the parsers read it
    # and it is the game the page names, line for line: its guesses, our referee's answers
    game = EleusisGame(make_deck("best_ne_mode", 1), 1, 1)
    guesses = iter(f"{guess}\n" for guess, _ in transcript)
    answers: list[str] = []
    result = referee(game, lambda: next(guesses, ""), answers.append)
    assert [a.rstrip("\n") for a in answers] == [answer for _, answer in transcript]
    assert (result.status, result.guesses, result.harma) == ("finished", 8, -2)
