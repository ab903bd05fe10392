"""Mus and FlagBots pass the same game-API conformance check over thousands of random games,
and the check itself catches each kind of broken game."""

from __future__ import annotations

import random

import pytest

from sparring.conformance import (
    ConformanceError,
    FlagBotsAdapter,
    MusAdapter,
    check_random_games,
)
from sparring.mus.game import MusConfig

FAST = [
    (FlagBotsAdapter(), 100),
    (FlagBotsAdapter("5/1NNN1/5/1SSS1/5 s 20"), 1000),
    (FlagBotsAdapter("7/1NNNNN1/7/##2###/7/1SSSSS1/7 s 30"), 300),
    (MusAdapter(), 200),
    (MusAdapter(MusConfig(target=10, response_model="pair_joint", cap_bets=True)), 300),
]


@pytest.mark.parametrize(("adapter", "games"), FAST, ids=lambda x: getattr(x, "name", str(x)))
def test_random_games_keep_the_game_api(adapter, games):
    report = check_random_games(adapter, games, seed=7)
    assert report.games == games and report.refused > games and report.steps > games


@pytest.mark.slow
@pytest.mark.parametrize("adapter", [FlagBotsAdapter(), MusAdapter()], ids=["flagbots", "mus"])
def test_thousands_of_random_games(adapter):
    assert check_random_games(adapter, 2000, seed=11).games == 2000


class _Coin:
    """A tiny two-player game whose faults can be switched on, to show the check bites."""

    def __init__(self, fault: str) -> None:
        self.fault, self.moves, self.secret = fault, 0, 1

    def current_player(self) -> int:
        return -1 if self.is_terminal() else self.moves % 2

    def legal_actions(self) -> list[int]:
        if self.fault == "moves_after_end" and self.is_terminal():
            return [0]
        return [] if self.is_terminal() else [0, 1]

    def is_terminal(self) -> bool:
        return self.moves >= 3

    def apply_action(self, action: int) -> None:
        if action not in (0, 1) or self.is_terminal():
            if self.fault == "illegal_changes_state":
                self.moves += 1
            raise ValueError(action)
        self.moves += 1

    def returns(self) -> list[float]:
        return [1.0, 1.0] if self.fault == "not_zero_sum" else [1.0, -1.0]


class _CoinAdapter:
    name = "coin"

    def __init__(self, fault: str) -> None:
        self.fault = fault

    def new_state(self, seed: int) -> _Coin:
        return _Coin(self.fault)

    def snapshot(self, state: _Coin) -> int:
        return state.moves

    def illegal_actions(self, state: _Coin, rng: random.Random) -> list[int]:
        return [5]

    def illegal_error(self) -> type[Exception]:
        return ValueError

    def leaks(self, state: _Coin) -> list[str]:
        return ["the secret"] if self.fault == "leaks" else []


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("moves_after_end", "terminal=True but 1 legal actions"),
        ("illegal_changes_state", "changed the state"),
        ("not_zero_sum", "sum to 2"),
        ("leaks", "hidden information"),
    ],
)
def test_the_check_catches_each_kind_of_fault(fault, message):
    with pytest.raises(ConformanceError, match=message):
        check_random_games(_CoinAdapter(fault), 3)
    assert check_random_games(_CoinAdapter("none"), 3).games == 3


def test_mus_observation_is_a_real_mapping():
    state = MusAdapter().new_state(3)
    obs = state.observation(0)
    assert obs.get("history") == obs["history"] and "history" in obs
    assert obs.get("nothing", 5) == 5 and "history" in dict(obs)
