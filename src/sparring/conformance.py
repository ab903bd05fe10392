"""One conformance check for every game's API, after OpenSpiel's ``random_sim_test``.

``check_random_games(adapter, games, seed)`` plays random games through a ``GameAdapter`` and
asserts at every step what any game of the toolkit must guarantee:

- there are no legal actions exactly when the game is over, and ``current_player()`` is
  ``TERMINAL`` (-1) exactly then;
- an illegal action raises and changes nothing;
- at the end the returns sum to zero (the games are zero-sum);
- no observation shows hidden information (what counts as hidden is the game's to say).

An adapter is small: how to start a game, a snapshot to compare states by, some actions that are
illegal now, and the observations' leaks. ``MusAdapter`` and ``FlagBotsAdapter`` are the two
games'; a new game gets its own.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Protocol

from sparring.game_api import TERMINAL


class GameAdapter(Protocol):
    name: str

    def new_state(self, seed: int) -> Any: ...

    def snapshot(self, state: Any) -> Any:
        """Something equal for equal states (to see that an illegal action changed nothing)."""

    def illegal_actions(self, state: Any, rng: random.Random) -> list[Any]:
        """A few actions the rules do not allow in ``state``."""

    def illegal_error(self) -> type[Exception]:
        """What ``apply_action`` raises for an illegal action."""

    def leaks(self, state: Any) -> list[str]:
        """Hidden information that some seat's observation shows (empty when none)."""


@dataclass
class Report:
    """What the check saw: games, steps, illegal actions refused, observations examined."""

    games: int = 0
    steps: int = 0
    refused: int = 0
    observations: int = 0


class ConformanceError(AssertionError):
    """A rule of the game API is broken; the message names the game, seed and step."""


def check_random_games(
    adapter: GameAdapter, games: int, seed: int = 0, max_steps: int = 10_000
) -> Report:
    """Play ``games`` random games and check every step; raises ``ConformanceError``."""
    report = Report()
    for game in range(games):
        rng = random.Random(seed * 1_000_003 + game)
        state = adapter.new_state(seed * 1_000_003 + game)
        for step in range(max_steps):
            where = f"{adapter.name} game {game} (seed {seed}) step {step}"
            legal = list(state.legal_actions())
            over = state.is_terminal()
            if over != (not legal):
                raise ConformanceError(f"{where}: terminal={over} but {len(legal)} legal actions")
            if (state.current_player() == TERMINAL) != over:
                raise ConformanceError(
                    f"{where}: current_player()={state.current_player()} with terminal={over}"
                )
            leaks = adapter.leaks(state)
            report.observations += 1
            if leaks:
                raise ConformanceError(f"{where}: an observation shows hidden information: {leaks}")
            before = adapter.snapshot(state)
            for action in adapter.illegal_actions(state, rng):
                try:
                    state.apply_action(action)
                except adapter.illegal_error():
                    report.refused += 1
                else:
                    raise ConformanceError(f"{where}: illegal action {action!r} was accepted")
                if adapter.snapshot(state) != before:
                    raise ConformanceError(f"{where}: refusing {action!r} changed the state")
            if over:
                total = sum(state.returns())
                if abs(total) > 1e-9:
                    raise ConformanceError(f"{where}: returns {state.returns()} sum to {total}")
                break
            state.apply_action(rng.choice(legal))
            report.steps += 1
        else:
            raise ConformanceError(f"{adapter.name} game {game}: not over after {max_steps} steps")
        report.games += 1
    return report


class FlagBotsAdapter:
    """FlagBots: perfect information, so no observation can leak."""

    name = "flagbots"

    def __init__(self, text: str | None = None) -> None:
        self.text = text

    def new_state(self, seed: int) -> Any:
        from sparring.flagbots.game import Position

        return Position.from_text(self.text) if self.text else Position()

    def snapshot(self, state: Any) -> Any:
        return (state.st.tobytes(), state.key)

    def illegal_actions(self, state: Any, rng: random.Random) -> list[Any]:
        legal = set(state.legal_actions())
        cells = int(state.cfg.width * state.cfg.height)
        candidates = [m for m in (rng.randrange(cells * 9) for _ in range(8)) if m not in legal]
        return [*candidates[:3], -1]

    def illegal_error(self) -> type[Exception]:
        from sparring.flagbots.game import IllegalMoveError

        return IllegalMoveError

    def leaks(self, state: Any) -> list[str]:
        return []


class MusAdapter:
    """Mus: a seat may see its own cards and the public events, never another seat's cards
    before they are shown."""

    name = "mus"

    def __init__(self, config: Any = None) -> None:
        self.config = config

    def new_state(self, seed: int) -> Any:
        from sparring.mus.game import MusGame

        return MusGame(self.config).new_initial_state(seed)

    def snapshot(self, state: Any) -> Any:
        return (
            state.phase,
            tuple(map(tuple, state.hands)),
            tuple(state.scores),
            tuple(state.queue),
            len(state.events),
            None if state.lance is None else repr(state.lance),
            state.rng.bit_generator.state["state"]["state"],
        )

    def illegal_actions(self, state: Any, rng: random.Random) -> list[Any]:
        from sparring.mus.game import DISCARD, MUS
        from sparring.mus.lance import Action

        legal = set(state.legal_actions())
        pool = [
            Action(MUS),
            Action(DISCARD, 0),
            Action(DISCARD, 16),
            Action("quiero"),
            Action("envido", 1),
            Action("envido", 10_000),
            Action("ordago"),
            Action("nonsense"),
        ]
        return [a for a in pool if a not in legal][:4]

    def illegal_error(self) -> type[Exception]:
        from sparring.mus.lance import IllegalActionError

        return IllegalActionError

    def leaks(self, state: Any) -> list[str]:
        found = []
        for seat in range(4):
            obs = state.observation(seat)
            if tuple(obs["hand"]) != tuple(state.hands[seat]):
                found.append(f"seat {seat} is shown a hand that is not its own")
            allowed = [
                (e.kind, e.seat, e.detail)
                for e in state.events
                if e.visible_to is None or seat in e.visible_to
            ]
            if list(obs["history"]) != allowed:
                found.append(f"seat {seat}'s history holds events it may not see")
        return found
