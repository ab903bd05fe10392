"""The line protocol between a referee and a scientist program.

The scientist writes ``"<suit> <number>"`` (``H 12``); the referee answers
``"<suit> <number> <0|1> <0|1>"`` (the guess, then suit right, number right). The referee
closes the scientist's input when the game ends. Any malformed line ends the game as invalid,
with what was received.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TextIO

import numpy as np

from sparring.eleusis.cards import SUITS, card_index, card_name
from sparring.eleusis.env import EleusisGame
from sparring.eleusis.scientists import Scientist

_GUESS = re.compile(r"^([CDHS]) (\d{1,2})$")
_FEEDBACK = re.compile(r"^([CDHS]) (\d{1,2}) ([01]) ([01])$")


class ProtocolError(ValueError):
    """A line that does not follow the protocol."""


def parse_guess(line: str) -> int:
    text = line.rstrip("\n")
    match = _GUESS.match(text)
    if not match or not 1 <= int(match.group(2)) <= 13:
        raise ProtocolError(
            f"expected '<suit> <number>' with suit in {SUITS} and number 1..13, got {text!r}"
        )
    return card_index(match.group(1), int(match.group(2)))


def parse_feedback(line: str, guess: int) -> int:
    text = line.rstrip("\n")
    match = _FEEDBACK.match(text)
    if not match:
        raise ProtocolError(f"expected '<suit> <number> <0|1> <0|1>', got {text!r}")
    if card_index(match.group(1), int(match.group(2))) != guess:
        raise ProtocolError(f"feedback {text!r} is not about the guess {card_name(guess)!r}")
    return int(match.group(3)) + 2 * int(match.group(4))


@dataclass
class RefereeResult:
    status: str  # "finished", "dnf" or "invalid"
    guesses: int
    harma: int
    message: str = ""


def referee(
    game: EleusisGame, read: Callable[[], str], write: Callable[[str], None]
) -> RefereeResult:
    """Play ``game`` against a scientist reached through ``read``/``write`` (lines)."""
    while not game.over:
        line = read()
        if not line:
            return RefereeResult(
                "invalid",
                game.guesses,
                game.harma,
                "the scientist stopped before the game was over",
            )
        try:
            card = parse_guess(line)
        except ProtocolError as exc:
            return RefereeResult("invalid", game.guesses, game.harma, str(exc))
        fb = game.guess(card)
        write(f"{card_name(card)} {int(fb.suit_right)} {int(fb.number_right)}\n")
    return RefereeResult("finished" if game.finished else "dnf", game.guesses, game.harma)


def run_referee(game: EleusisGame, command: Sequence[str]) -> RefereeResult:
    """Run an external scientist program and referee one game over its stdin/stdout."""
    try:
        proc = subprocess.Popen(
            list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
    except OSError as exc:
        return RefereeResult("invalid", 0, game.harma, f"cannot start {command[0]!r}: {exc}")
    assert proc.stdin is not None and proc.stdout is not None
    stdin = proc.stdin

    def write(line: str) -> None:
        try:
            stdin.write(line)
            stdin.flush()
        except BrokenPipeError:
            pass  # the next read reports that the scientist stopped

    try:
        result = referee(game, proc.stdout.readline, write)
    finally:
        with contextlib.suppress(BrokenPipeError):
            proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    return result


def run_scientist(
    name: str,
    seed: int,
    harma: int,
    p_true: np.ndarray | None,
    stdin: TextIO = sys.stdin,
    stdout: TextIO = sys.stdout,
    family: str | None = None,
) -> int:
    """Our scientist speaking the protocol until the referee closes the input.

    Returns 0 at a normal end, 2 after a malformed feedback line (reported on stderr)."""
    scientist = Scientist(name, seed=seed, p_true=p_true, h0=harma, family=family)
    while True:
        card = scientist.guess()
        try:
            stdout.write(card_name(card) + "\n")
            stdout.flush()
        except BrokenPipeError:
            return 0
        line = stdin.readline()
        if not line:
            return 0
        try:
            scientist.learn(parse_feedback(line, card))
        except ProtocolError as exc:
            print(f"sparring eleusis scientist: error: {exc}", file=sys.stderr)
            return 2
