"""Sparring as an ACPC dealer (``acpc:`` seats) against real programs over TCP: Sparring's own
ACPC client in every seat, and small programs that misbehave."""

from __future__ import annotations

import socket
import sys
import time
from pathlib import Path

import pytest

from sparring.arena.acpc_seat import AcpcProgramAgent
from sparring.arena.agents import make, parse
from sparring.arena.play import play_game
from sparring.poker.acpc import gamedef_path, load_gamedef, log_state
from sparring.poker.game import Holdem
from sparring.runtime.programs.program import AgentFault, Limits, live_members, network_isolation
from tests.helpers.commands import cli_argv
from tests.poker.test_acpc import ReferenceRules

BOTS = Path(__file__).with_name("acpc_bots.py")
# Sparring's client imports numpy and numba: far more address space than a contest bot's 100 MB
CLIENT_LIMITS = Limits(memory_mb=4096, start_s=60.0, move_s=10.0)
FAST = Limits(move_s=1.0, start_s=10.0, memory_mb=200)


def bot(mode: str) -> list[str]:
    return [sys.executable, str(BOTS), mode]


def _gone(agents) -> bool:
    """Every program of ``agents`` has ended (its whole process group)."""
    pids = [a.program.pid for a in agents if a.program is not None]
    for a in agents:
        a.close()
    deadline = time.monotonic() + 5
    while any(live_members(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not any(live_members(p) for p in pids)


@pytest.mark.slow
@pytest.mark.parametrize("seats", [2, 3, 10])
def test_sparrings_client_against_sparrings_dealer_a_thousand_hands(seats):
    """Zero invalid actions; every logged hand sums to zero, and its values are those of the
    protocol's rules (written in the tests from the specification) for its cards and actions,
    and the arena's returns."""
    argv = cli_argv("poker", "acpc-client", "--agent", "random", "--game", str(gamedef_path(seats)))
    agents = [AcpcProgramAgent(argv, CLIENT_LIMITS, f"client{s}") for s in range(seats)]
    names = [f"client{s}" for s in range(seats)]
    gamedef = load_gamedef(gamedef_path(seats))
    try:
        for number in range(1000):
            record = play_game(Holdem(seats), agents, seed=number, names=names)
            assert record.forfeit_seat is None, (record.forfeit_kind, record.forfeit_detail)
            hand = Holdem(seats).new_state(number)
            for action in record.actions:
                hand.apply_action(action)
            line = log_state(hand, number, names)
            values = [float(v) for v in line.split(":")[4].split("|")]
            assert abs(sum(values)) < 1e-9 and values == pytest.approx(record.returns, abs=1e-6)
            rules = ReferenceRules(gamedef, hand.holes, hand.board)
            for letter in line.split(":")[2].replace("/", ""):
                rules.act(letter)
            assert rules.finished and values == pytest.approx(rules.values(), abs=1e-6)
        assert [a.invalid for a in agents] == [[]] * seats
        assert sum(a.decisions for a in agents) > 1000
    finally:
        assert _gone(agents)


class Caller:
    """Calls (or checks) every time."""

    def act(self, observation, legal):
        return "call"


class Raiser:
    """Raises whenever it may."""

    def act(self, observation, legal):
        return "raise" if "raise" in legal else "call"


def _heads_up(mode: str, hands: int = 5, limits: Limits = FAST, other=None):
    seat = AcpcProgramAgent(bot(mode), limits, mode)
    other = other or Caller()
    records = [play_game(Holdem(2), [seat, other], seed=h) for h in range(hands)]
    return seat, records


def test_a_caller_plays_every_hand_with_no_invalid_action():
    seat, records = _heads_up("caller", hands=20)
    assert all(r.forfeit_seat is None for r in records) and seat.invalid == []
    # both call down every hand: a showdown each time, never a fold
    assert all(set(r.actions) == {"call"} for r in records)
    assert _gone([seat])


def test_an_invalid_action_is_recorded_and_played_as_a_call():
    # against a caller the big blind (seat 0) never owes a chip: every fold is invalid
    seat, records = _heads_up("folder", hands=10)
    assert all(r.forfeit_seat is None and "fold" not in r.actions for r in records)
    assert len(seat.invalid) == seat.decisions > 0
    assert all("played as call" in why for why in seat.invalid)
    assert _gone([seat])
    # against a raiser it owes at once: the fold is valid and ends the hand
    seat, records = _heads_up("folder", hands=10, other=Raiser())
    assert seat.invalid == [] and all(r.actions == ["raise", "fold"] for r in records)
    assert _gone([seat])


def test_no_action_letter_at_all_is_an_invalid_action_and_comments_are_skipped():
    seat, records = _heads_up("junk", hands=3)
    assert all(r.forfeit_seat is None for r in records)
    assert len(seat.invalid) == seat.decisions > 0
    assert all(":x (allowed" in why for why in seat.invalid), seat.invalid[:2]
    assert _gone([seat])


@pytest.mark.parametrize(
    ("mode", "kind"), [("exit", "crash"), ("badversion", "garbage"), ("hang", "timeout")]
)
def test_a_faulty_acpc_program_forfeits_and_leaves_nothing_running(mode, kind):
    seat, records = _heads_up(mode, hands=3)
    faults = [r for r in records if r.forfeit_seat is not None]
    assert faults and {r.forfeit_kind for r in faults} == {kind}, [r.forfeit_detail for r in faults]
    assert all(r.forfeit_seat == 0 for r in faults)
    assert _gone([seat])


def test_a_program_that_connects_and_exits_at_once_is_said_to_have_closed_its_connection():
    """The keeper hands over a connection its program made even when the program is gone
    by then: the fault names the closed connection and the exit status, every time. (The
    keeper waits for its hand-over before it exits; the race it closes, the keeper's exit
    before the hand-over thread's send, was not seen here in 60 tries without the wait.)"""
    for _ in range(5):
        seat = AcpcProgramAgent(bot("connect_exit"), FAST, "bot")
        with pytest.raises(AgentFault) as fault:
            seat.start({"game": "poker", "seat": 0, "players": 2, "seed": 0})
        assert fault.value.kind == "crash"
        assert "bot closed its connection (exit status 4" in fault.value.detail
        assert _gone([seat])


@pytest.mark.skipif(network_isolation() is None, reason="no network namespaces on this machine")
def test_an_acpc_program_reaches_its_dealer_and_nothing_else():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(0.5)
    port = listener.getsockname()[1]
    seat, records = _heads_up(f"probe:{port}", hands=2)
    assert all(r.forfeit_seat is None for r in records) and seat.program.isolated
    log = seat.program.stderr() if seat.program else ""
    seat.close()
    assert "probe: ConnectionRefusedError" in log or "probe: OSError" in log or "probe:" in log
    assert "probe: connected" not in log
    with pytest.raises(TimeoutError):  # nothing reached the outside listener
        listener.accept()
    listener.close()


def test_an_acpc_spec_is_checked_like_a_program_spec():
    spec = parse(f"acpc:{sys.executable} {BOTS} caller")
    assert spec.kind == "acpc" and spec.games == ("poker",)
    assert isinstance(make(spec, FAST), AcpcProgramAgent)
    with pytest.raises(ValueError, match="no such program"):
        parse("acpc:/no/such/bot")
    with pytest.raises(ValueError, match="a command line"):
        parse("acpc:")


def test_the_example_acpc_player_answers_exactly_its_turns_in_every_seat():
    """examples/agents/acpc_caller.py works out whose turn it is itself: a wrong guess would
    be a timeout (a question not answered) or an ignored answer; neither happens."""
    example = Path(__file__).resolve().parents[2] / "examples" / "agents" / "acpc_caller.py"
    for seats in (2, 3, 10):
        seat = AcpcProgramAgent([sys.executable, str(example)], FAST, "acpc_caller")
        others = [Raiser() if s % 2 else Caller() for s in range(seats - 1)]
        for number in range(60):
            at = number % seats
            agents = [*others[:at], seat, *others[at:]]
            record = play_game(Holdem(seats), agents, seed=number)
            assert record.forfeit_seat is None, record.forfeit_detail
        assert seat.invalid == [] and seat.decisions > 60
        assert _gone([seat])
