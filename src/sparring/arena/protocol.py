"""The arena's line protocol (JSON lines, version 1) and the agent that speaks it for a program.

One message per line, each a JSON object; the arena writes to the program's stdin and reads its
stdout (stderr is a log). See docs/reference/protocols.md for a transcript per game.

- ``{"type": "start", "protocol": 1, "game": ..., "seat": ..., "players": ..., "seed": ...,
  "limits": {"move_ms": ..., "start_ms": ..., "game_ms": ...}}`` begins a game; the program
  answers one object (``{"ready": true}``, optionally with a ``"name"``) within ``start_ms``.
- ``{"type": "act", "observation": {...}, "legal": [...], "time_left_ms": ...}`` asks for a
  decision: ``observation`` is what this seat may know (never another seat's hidden cards),
  ``legal`` the actions allowed now; the answer is ``{"action": <one of legal>}`` within
  ``time_left_ms``.
- ``{"type": "end", "returns": [...]}`` ends the game (no answer). Another ``start`` may follow;
  at the end of the contest stdin is closed and the program should exit.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from sparring.runtime.programs.program import AgentFault, Limits, Program

PROTOCOL_VERSION = 1


def start_message(info: dict[str, Any], limits: Limits) -> dict[str, Any]:
    """The ``start`` line of a game: ``info`` (game, seat, players, seed) and the limits."""
    return {
        "type": "start",
        "protocol": PROTOCOL_VERSION,
        **info,
        "limits": {
            "move_ms": round(limits.move_s * 1000),
            "start_ms": round(limits.start_s * 1000),
            "game_ms": None if limits.game_s is None else round(limits.game_s * 1000),
        },
    }


def act_message(observation: dict[str, Any], legal: Sequence[Any], left_s: float) -> dict:
    return {
        "type": "act",
        "observation": observation,
        "legal": list(legal),
        "time_left_ms": max(0, round(left_s * 1000)),
    }


def end_message(returns: Sequence[float]) -> dict[str, Any]:
    return {"type": "end", "returns": [float(r) for r in returns]}


class ProgramAgent:
    """An ``Agent`` that is an outside program: started on the first ``start`` (and again after
    a fault), kept between games, ended by ``close``. Every fault raises ``AgentFault`` and ends
    the program's processes."""

    def __init__(self, argv: Sequence[str], limits: Limits, name: str) -> None:
        self.argv, self.limits, self.name = list(argv), limits, name
        self.program: Program | None = None
        self._game_left: float | None = None
        self.decisions = 0

    def _guarded(self, step):
        try:
            return step()
        except AgentFault:
            self.close()
            raise

    def start(self, info: dict[str, Any]) -> None:
        def step() -> None:
            if self.program is None:
                self.program = Program(self.argv, self.limits, self.name)
                self.program.start()
            deadline = time.monotonic() + self.limits.start_s
            self.program.send(start_message(info, self.limits), deadline)
            self.program.receive(deadline)  # {"ready": true}: any object

        self._game_left = self.limits.game_s
        self._guarded(step)

    def act(self, observation: dict[str, Any], legal: Sequence[Any]) -> Any:
        def step() -> Any:
            assert self.program is not None, "act before start"
            budget = self.limits.move_s
            if self._game_left is not None:
                budget = min(budget, self._game_left)
            began = time.monotonic()
            deadline = began + budget
            self.program.send(act_message(observation, legal, budget), deadline)
            answer = self.program.receive(deadline)
            if self._game_left is not None:
                self._game_left -= time.monotonic() - began
            if "action" not in answer:
                raise AgentFault("garbage", f"{self.name} answered {answer!r}, not an action")
            self.decisions += 1
            return answer["action"]

        return self._guarded(step)

    def end(self, returns: Sequence[float]) -> None:
        if self.program is None:
            return
        try:
            self.program.send(end_message(returns), time.monotonic() + 1.0)
        except AgentFault:
            self.close()

    def close(self) -> None:
        if self.program is not None:
            self.program.close()
            self.program = None


class Transcript:
    """An ``Agent`` wrapper that writes down what a program in its seat would read (``>``)
    and answer (``<``), as JSON lines: the transcripts of docs/reference/protocols.md."""

    def __init__(self, agent: Any, limits: Limits | None = None) -> None:
        self.agent, self.limits = agent, limits or Limits()
        self.lines: list[str] = []

    def _say(self, direction: str, message: dict[str, Any]) -> None:
        import json

        self.lines.append(f"{direction} {json.dumps(message, separators=(',', ':'))}")

    def start(self, info: dict[str, Any]) -> None:
        self._say(">", start_message(info, self.limits))
        if callable(getattr(self.agent, "start", None)):
            self.agent.start(info)
        self._say("<", {"ready": True})

    def act(self, observation: dict[str, Any], legal: Sequence[Any]) -> Any:
        self._say(">", act_message(observation, legal, self.limits.move_s))
        action = self.agent.act(observation, legal)
        self._say("<", {"action": action})
        return action

    def end(self, returns: Sequence[float]) -> None:
        self._say(">", end_message(returns))
