"""The line protocol between a referee and a scientist program.

The scientist writes ``"<suit> <number>"`` (``H 12``); the referee answers
``"<suit> <number> <0|1> <0|1>"`` (the guess, then suit right, number right). The referee
closes the scientist's input when the game ends. Any malformed line ends the game as invalid,
with (at most 80 characters of) what was received; a scientist that does not move in time loses
the game on time. See ``channel`` for the limits that keep the referee from hanging.
"""

from __future__ import annotations

import re
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TextIO

import numpy as np

from sparring.eleusis.cards import SUITS, card_index, card_name
from sparring.eleusis.env import EleusisGame
from sparring.eleusis.scientists import Scientist
from sparring.runtime.programs.line_channel import LineProgram, MoveTimeout, ProtocolError, quote

_GUESS = re.compile(r"^([CDHS]) (\d{1,2})$")
_FEEDBACK = re.compile(r"^([CDHS]) (\d{1,2}) ([01]) ([01])$")


EXIT_FINISHED, EXIT_INVALID, EXIT_TIMEOUT = 0, 3, 4
"""``sparring eleusis referee``'s exit status: the game finished (or hit the guess cap), the
scientist broke the protocol, or it did not move in time."""


def parse_guess(line: str) -> int:
    text = line.rstrip("\n")
    match = _GUESS.match(text)
    if not match or not 1 <= int(match.group(2)) <= 13:
        raise ProtocolError(
            f"expected '<suit> <number>' with suit in {SUITS} and number 1..13, got {quote(text)}"
        )
    return card_index(match.group(1), int(match.group(2)))


def parse_feedback(line: str, guess: int) -> int:
    text = line.rstrip("\n")
    match = _FEEDBACK.match(text)
    if not match:
        raise ProtocolError(f"expected '<suit> <number> <0|1> <0|1>', got {quote(text)}")
    if card_index(match.group(1), int(match.group(2))) != guess:
        raise ProtocolError(f"feedback {text!r} is not about the guess {card_name(guess)!r}")
    return int(match.group(3)) + 2 * int(match.group(4))


@dataclass
class RefereeResult:
    status: str  # "finished", "dnf", "invalid" or "timeout"
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


def run_referee(
    game: EleusisGame,
    command: Sequence[str],
    move_timeout: float = 10.0,
    game_timeout: float | None = None,
    max_line: int = 1024,
    start_timeout: float = 60.0,
    sandbox: str | None = None,
    read_only: Sequence[str] = (),
) -> RefereeResult:
    """Run an external scientist program and referee one game over its stdin/stdout.

    Never hangs: each move has ``move_timeout`` seconds, the first ``start_timeout`` (the program
    is starting), and the whole game ``game_timeout``;
    lines are at most ``max_line`` bytes of UTF-8. Everything the program started is ended on
    every way out: SIGINT, SIGTERM and SIGHUP to the referee included, and (by the program's
    keeper, ``runtime.programs.keeper``) the referee's own death. It runs in the sandbox
    (``runtime.programs.jail``) unless ``sandbox`` is "none"; ``read_only``: more paths it may
    read."""
    try:
        program = LineProgram(
            command, move_timeout, max_line, game_timeout, start_timeout, sandbox, read_only
        )
    except OSError as exc:
        return RefereeResult("invalid", 0, game.harma, f"cannot start {command[0]!r}: {exc}")

    def read() -> str:
        line = program.read_line()
        return "" if line is None else line + "\n"

    restore = _terminate_as_interrupt()
    try:
        return referee(game, read, lambda line: program.write_line(line.rstrip("\n")))
    except MoveTimeout as exc:
        return RefereeResult("timeout", game.guesses, game.harma, str(exc))
    except ProtocolError as exc:
        return RefereeResult("invalid", game.guesses, game.harma, str(exc))
    finally:
        program.close()
        restore()


def _terminate_as_interrupt():
    """While refereeing, SIGTERM and SIGHUP unwind like Ctrl-C (so the program is ended too);
    returns a function that puts the previous handlers back."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGTERM, signal.SIGHUP)}
    return lambda: [signal.signal(sig, handler) for sig, handler in previous.items()]


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
