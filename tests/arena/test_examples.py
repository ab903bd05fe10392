"""The example bots of examples/agents/ (plain Python, nothing of Sparring imported) play
their games through the sandbox: no forfeit in a few games against Sparring's random agent,
and each plays as its docstring says."""

from __future__ import annotations

import ast
import sys

import pytest

from sparring import game_api
from sparring.arena.agents import RandomAgent
from sparring.arena.play import play_game
from sparring.arena.protocol import ProgramAgent
from sparring.runtime.programs.program import Limits
from tests.helpers.commands import ROOT

EXAMPLES = ROOT / "examples" / "agents"
FAST = Limits(move_s=2.0, start_s=10.0)


def program(name: str) -> ProgramAgent:
    return ProgramAgent([sys.executable, str(EXAMPLES / name)], FAST, name)


@pytest.mark.parametrize(
    ("bot", "game"),
    [
        ("poker_bot.py", "poker"),
        ("flagbots_bot.py", "flagbots"),
        ("mus_bot.py", "mus"),
        ("eleusis_bot.py", "eleusis"),
        ("random_bot.py", "mus"),
    ],
)
def test_an_example_bot_plays_its_game_without_a_forfeit(bot, game):
    registered = game_api.get(game)
    agent = program(bot)
    try:
        for seed in range(3):
            others = [RandomAgent() for _ in range(registered.num_players - 1)]
            record = play_game(registered, [agent, *others], seed, max_decisions=3000)
            assert record.forfeit_seat is None, record.forfeit_detail
            assert record.decisions >= 1
    finally:
        agent.close()


def imported(path) -> set[str]:
    """The top-level modules a script imports."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add((node.module or "").split(".")[0])
    return names


def test_the_example_bots_import_nothing_of_sparring():
    for path in EXAMPLES.glob("*.py"):
        assert imported(path) <= {"json", "random", "sys", "socket", "time"}, path


def test_the_poker_bot_raises_a_pair_and_folds_nothing_to_a_bet_after_the_flop():
    agent = program("poker_bot.py")
    try:
        agent.start({"game": "poker", "seat": 0, "players": 2, "seed": 0})
        pair = {"hole": ["7h", "7d"], "board": [], "to_call": 1}
        assert agent.act(pair, ["fold", "call", "raise"]) == "raise"
        nothing = {"hole": ["7h", "2d"], "board": ["Qs", "9c", "4d"], "to_call": 2}
        assert agent.act(nothing, ["fold", "call", "raise"]) == "fold"
        check = {"hole": ["7h", "2d"], "board": ["Qs", "9c", "4d"], "to_call": 0}
        assert agent.act(check, ["call", "raise"]) == "call"
    finally:
        agent.close()
