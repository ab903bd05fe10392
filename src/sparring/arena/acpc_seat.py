"""An ACPC poker program in an arena seat: Sparring as the ACPC dealer (``acpc:<command>``).

The program runs under the sandbox's limits like any ``cmd:`` program, but talks TCP: its
keeper listens on 127.0.0.1 at a free port (inside the program's empty network namespace where
the machine allows one, so the dealer is all it can reach) and starts it with host and port
appended, as the reference ``play_match.pl`` starts its players (``sandbox.Program(relay=True)``).

What it is sent and what is made of its answers follow the reference dealer (``dealer.c``):

- first it must send ``VERSION:2.<minor>.<rev>`` (within ``start_s``);
- it is sent the ``MATCHSTATE`` of its position after every event of a hand (the start, every
  action, the end), lines ending ``\\r\\n``; hand numbers count the hands this seat has
  played. The states between two of its turns go out together when the next turn comes (or
  the hand ends: ``observe``), in one write: the same lines in the same order, without a
  wake-up of the program per line. They are worked out from the seat's observation at that
  moment (``poker.acpc.match_states``: every state is a prefix of its history);
- on its turn it answers ``<that match state>:<action>`` within ``move_s``. Lines starting
  ``#`` or ``;`` are comments, and a line that repeats another state is ignored, as the
  reference ignores an un-requested response (the clock runs on);
- an action letter it may not play there (a fold with nothing to call, a raise over the cap)
  or no letter is an *invalid action*: recorded in ``invalid`` and played as a call, as the
  reference dealer does (a contest counts them per game and seat: ``games.jsonl``'s
  ``invalid``, the arena run's ``invalid_actions/<name>``);
- a timeout, a dropped connection, a crash, a line over ``line_bytes`` are the sandbox's
  ``AgentFault``: the seat forfeits that game, and the program is started again for the next.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import Any

from sparring.arena.protocol import ProgramAgent
from sparring.poker.acpc import WORD, match_states
from sparring.runtime.programs.program import AgentFault, Limits, Program

_VERSION = re.compile(rb"^VERSION:2\.\d+\.\d+\r?$")


class AcpcProgramAgent(ProgramAgent):
    """An ``Agent`` that is an ACPC program (see the module docstring); started, guarded and
    closed as a JSON-lines ``ProgramAgent`` is, but spoken to over its TCP connection."""

    def __init__(self, argv: Sequence[str], limits: Limits, name: str) -> None:
        super().__init__(argv, limits, name)
        self.hands = 0  # hands started: the next hand's number
        self.hand_number = -1
        self.sent = ""  # the last match state sent (or queued)
        self._queued: list[bytes] = []  # states not yet written
        self.invalid: list[str] = []  # each invalid action: hand, state and what was sent
        self._next = 0  # the hand's states sent: those after 0 .. _next - 1 actions

    def start(self, info: dict[str, Any]) -> None:
        def step() -> None:
            if self.program is None:
                self.program = Program(self.argv, self.limits, self.name, relay=True)
                self.program.start()
                line = self.program.receive_line(time.monotonic() + self.limits.start_s)
                if not _VERSION.match(line):
                    shown = line[:60].decode("utf-8", "replace")
                    raise AgentFault("garbage", f"{self.name} sent {shown!r}, not VERSION:2.0.0")

        self._guarded(step)
        self.hand_number, self.hands = self.hands, self.hands + 1
        self.sent, self._queued, self._next = "", [], 0
        self._game_left = self.limits.game_s

    def observe(self, observation: dict[str, Any]) -> None:
        """The hand is over (``arena.play`` shows an observer its final view): its last
        states are written."""
        self._catch_up(observation)
        self._flush()

    def _catch_up(self, observation: dict[str, Any]) -> None:
        """Queue every state of the hand not sent yet, up to ``observation``'s."""
        lines = match_states(observation, self.hand_number, self._next)
        if lines:
            self._queued += [line.encode() + b"\r\n" for line in lines]
            self._next += len(lines)
            self.sent = lines[-1]

    def _flush(self) -> None:
        def step() -> None:
            assert self.program is not None, "observe before start"
            if self._queued:
                data, self._queued = b"".join(self._queued), []
                self.program.send_line(data, time.monotonic() + self.limits.move_s)

        self._guarded(step)

    def act(self, observation: dict[str, Any], legal: Sequence[Any]) -> Any:
        self._catch_up(observation)
        self._flush()

        def step() -> str:
            assert self.program is not None
            budget = self.limits.move_s
            if self._game_left is not None:
                budget = min(budget, self._game_left)
            began = time.monotonic()
            deadline = began + budget
            expected = self.sent.encode() + b":"
            while True:
                line = self.program.receive_line(deadline).rstrip(b"\r")
                if line[:1] in (b"#", b";") or not line.startswith(expected):
                    continue  # a comment, or not an answer to this state: ignored
                letter = line[len(expected) : len(expected) + 1].decode("latin-1")
                break
            if self._game_left is not None:
                self._game_left -= time.monotonic() - began
            self.decisions += 1
            word = WORD.get(letter, "")
            if word not in legal:
                self.invalid.append(
                    f"hand {self.hand_number}: {self.sent}:{letter or '(none)'} (allowed: "
                    f"{', '.join(legal)}), played as call"
                )
                word = "call"
            return word

        return self._guarded(step)

    def end(self, returns: Sequence[float]) -> None:
        """Nothing to send: the hand's last state went out with ``observe``."""
