"""One game between agents, through the game protocol alone, with faults as forfeits.

``play_game`` asks the seat to act for every decision with ``observation(seat)`` and
``legal_actions()``; an agent with an ``observe(observation)`` hook (an ACPC program, which is
sent every state of a hand) is also shown its seat's observation when the game is over (the
states between, it works out from the history it is shown). An answer that is not one of the
legal actions (after a JSON round trip an action is an int or a str) or any ``AgentFault``
(crash, timeout, memory, garbage) ends the game there: the faulty seat forfeits. A forfeit
scores as the worst result for that seat and an even share of its loss for the others (a team
game: its whole team loses; zero-sum games keep their sum); a one-player game (Eleusis) records
the forfeit with the seat's returns as they stood.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sparring.game_api import Game, IllegalActionError, trait
from sparring.runtime.programs.program import AgentFault
from sparring.runtime.storage import keys

_PROCESS_SECRET = secrets.token_bytes(32)  # keys the start seeds of a caller without a secret


@dataclass
class GameRecord:
    """What happened: the returns per seat, the actions played, and a forfeit if any."""

    game: str
    seed: int
    names: list[str]
    returns: list[float]
    actions: list[Any] = field(default_factory=list)
    forfeit_seat: int | None = None
    forfeit_kind: str = ""
    forfeit_detail: str = ""
    seconds: float = 0.0
    capped: bool = False  # stopped at max_decisions (a draw: no seat is at fault)
    invalid: list[int] = field(default_factory=list)  # per seat: ACPC invalid actions (contest)

    @property
    def decisions(self) -> int:
        return len(self.actions)


def forfeit_returns(
    num_players: int, seat: int, teams: Sequence[Sequence[int]] | None = None, worst: float = -1.0
) -> list[float]:
    """The faulty ``seat`` (with its partners, where the game has ``teams``) gets ``worst``;
    the others share its loss evenly, so a zero-sum game stays zero-sum."""
    if num_players == 1:
        return [worst]
    losers = next((set(t) for t in teams or () if seat in t), {seat})
    share = -worst * len(losers) / (num_players - len(losers))
    return [worst if s in losers else share for s in range(num_players)]


def seat_seed(secret: bytes | None, game: str, seed: int, seat: int) -> int:
    """The seed a seat's start message carries in the game of chance seed ``seed``: keyed by
    ``secret`` (a contest's; None: this process's own), so it tells nothing of ``seed``."""
    return keys.derive_seed(secret or _PROCESS_SECRET, "start", game, seed, seat)


def _call(agent: Any, method: str, *args: Any) -> Any:
    hook = getattr(agent, method, None)
    return hook(*args) if callable(hook) else None


def play_game(
    game: Game[Any],
    agents: Sequence[Any],
    seed: int,
    names: Sequence[str] | None = None,
    opening: Sequence[Any] = (),
    max_decisions: int = 20_000,
    secret: bytes | None = None,
) -> GameRecord:
    """One game of ``game`` from ``new_state(seed)`` after the ``opening`` actions (a unit's
    shared start), seat ``i`` played by ``agents[i]``. A game still on after ``max_decisions``
    (Mus players who always ask for mus never play a hand) is stopped as a draw, ``capped``.

    Each seat's start message carries a seed of its own for its random choices, derived from
    ``secret`` (a contest's), the game, ``seed`` and the seat; never ``seed`` itself, which
    determines the game's hidden chance. Without ``secret`` the seeds are keyed by this
    process's own random secret (an agent that uses its seed then plays differently each run)."""
    if len(agents) != game.num_players:
        raise ValueError(f"{game.name} has {game.num_players} seats, got {len(agents)} agents")
    names = list(names or [type(a).__name__ for a in agents])
    began = time.perf_counter()
    state = game.new_state(seed)
    for action in opening:
        state.apply_action(action)
    record = GameRecord(game.name, seed, names, [0.0] * game.num_players)

    def forfeit(seat: int, kind: str, detail: str) -> GameRecord:
        record.forfeit_seat, record.forfeit_kind, record.forfeit_detail = seat, kind, detail
        if game.num_players == 1:
            record.returns = [float(r) for r in state.returns()]
        else:
            record.returns = forfeit_returns(game.num_players, seat, trait(game, "teams"))
        for other, agent in enumerate(agents):
            if other != seat:
                _end(agent, record.returns)
        record.seconds = time.perf_counter() - began
        return record

    for seat, agent in enumerate(agents):
        own = seat_seed(secret, game.name, seed, seat)
        info = {"game": game.name, "seat": seat, "players": game.num_players, "seed": own}
        try:
            _call(agent, "start", info)
        except AgentFault as fault:
            return forfeit(seat, fault.kind, fault.detail)
        except Exception as exc:  # an in-process agent's bug loses its game, not the contest
            return forfeit(seat, "crash", f"{names[seat]} raised {_line(exc)}")
    observers = [(s, a.observe) for s, a in enumerate(agents) if callable(getattr(a, "observe", 0))]
    while not state.is_terminal():
        if len(record.actions) >= max_decisions:
            record.capped = True
            record.returns = [0.0] * game.num_players
            for agent in agents:
                _end(agent, record.returns)
            record.seconds = time.perf_counter() - began
            return record
        seat = state.current_player()
        legal = list(state.legal_actions())
        try:
            action = agents[seat].act(state.observation(seat), legal)
        except AgentFault as fault:
            return forfeit(seat, fault.kind, fault.detail)
        except Exception as exc:  # an in-process agent's bug loses its game, not the contest
            return forfeit(seat, "crash", f"{names[seat]} raised {_line(exc)}")
        if hasattr(action, "item") and not isinstance(action, str):  # a numpy scalar
            action = action.item()
        # exactly an int or a str: JSON's 1.0 and true are not the action 1
        if type(action) not in (int, str) or action not in legal:
            return forfeit(seat, "illegal", f"{names[seat]} played {action!r}, not a legal action")
        try:
            state.apply_action(action)
        except IllegalActionError as exc:
            return forfeit(seat, "illegal", f"{names[seat]} played {action!r}: {exc}")
        record.actions.append(action)
    for seat, observe in observers:  # the game is over: a fault now loses nothing more
        with contextlib.suppress(AgentFault):
            observe(state.observation(seat))
    record.returns = [float(r) for r in state.returns()]
    for agent in agents:
        _end(agent, record.returns)
    record.seconds = time.perf_counter() - began
    return record


def _end(agent: Any, returns: Sequence[float]) -> None:
    with contextlib.suppress(AgentFault):  # the game is over: a fault now loses nothing more
        _call(agent, "end", list(returns))


def _line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200]}" if text else type(exc).__name__
