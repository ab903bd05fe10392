"""What the bridges cost: steps/s of random games through the PettingZoo environment and the
OpenSpiel game, against Sparring's native ``game_api`` loop, in one run (goal: at most 2x).

The same games (seeds 0..n-1) and the same random choices in all three: each step picks a legal
action uniformly, and the bridges add what a learner sees at each step (the PettingZoo
observation with its mask; OpenSpiel's legal actions and observation tensor). The loops are
timed in turn, round after round, and each keeps its best round: a machine that slows down for
a while slows all of them alike.

Each bridge is also timed on the game's replay (``_Replayed``): the same turns and legal sets,
with rules and encoding that cost nothing. Its time a step, less the replay's native loop, is
the bridge's own work (its API's bookkeeping, the mask, the action ids); ``1 + own / native``
is the least the bridge can cost the game. Where that floor is near 2 or above, no encoding
fits under the goal: the limit is the API's, per step, against a game whose native step is
short.

    .venv/bin/python benchmarks/interop.py [--quick]
"""

from __future__ import annotations

import random
import time

import numpy as np
from _common import parser, report

from sparring import game_api
from sparring.game_api import TERMINAL
from sparring.interop import openspiel
from sparring.interop.pettingzoo import raw_env

GAMES = ("poker", "mus", "flagbots", "eleusis")


def native(name: str, games: int) -> int:
    """Random games through ``game_api`` alone, with each seat's observation; steps played."""
    game, rng, steps = game_api.get(name), random.Random(0), 0
    for seed in range(games):
        state = game.new_state(seed)
        while not state.is_terminal():
            state.observation(state.current_player())
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
    return steps


def through_pettingzoo(name: str, games: int) -> int:
    aec, rng, steps = raw_env(name), random.Random(0), 0
    for seed in range(games):
        aec.reset(seed=seed)
        for _agent in aec.agent_iter():
            observation, _, terminated, truncated, _ = aec.last()
            if terminated or truncated:
                aec.step(None)
                continue
            aec.step(rng.choice(observation["action_mask"].nonzero()[0].tolist()))
            steps += 1
    return steps


def through_openspiel(name: str, games: int) -> int:
    import pyspiel  # type: ignore[import-untyped]

    game = pyspiel.load_game(f"python_sparring_{name}(num_seeds={games})")
    rng, steps = random.Random(0), 0
    for seed in range(games):
        state = game.new_initial_state()
        state.apply_action(seed)  # the chance node: the deal of new_state(seed)
        while not state.is_terminal():
            state.observation_tensor(state.current_player())
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
    return steps


class _Replay:
    """A game's recorded turns, replayed: its legal actions at each turn, an observation and an
    encoding that cost nothing (prebuilt), no rules. Through a bridge, what is left is the
    bridge's own work and its API's."""

    def __init__(self, turns: list[tuple], players: int) -> None:
        self.turns, self.players, self.at = turns, players, 0

    def current_player(self) -> int:
        return TERMINAL if self.at == len(self.turns) else self.at % self.players

    def legal_actions(self) -> list:
        return list(self.turns[self.at])

    def apply_action(self, action: object) -> None:
        self.at += 1

    def is_terminal(self) -> bool:
        return self.at == len(self.turns)

    def returns(self) -> list[float]:
        return [0.0] * self.players

    def observation(self, player: int) -> dict:
        return _SEEN

    def clone(self) -> _Replay:
        copy = _Replay(self.turns, self.players)
        copy.at = self.at
        return copy


_SEEN: dict = {}


class _Replayed:
    """``replay_<game>``: the turns of the games the loops play (seeds 0..n-1, the same random
    choices), each legal set kept once."""

    def __init__(self, name: str, games: int) -> None:
        game, rng, kept = game_api.get(name), random.Random(0), {}
        self.name, self.num_players = f"replay_{name}", game.num_players
        self.constant_sum = game.constant_sum
        self.table, self.shape = tuple(game.actions()), tuple(game.observation_shape())
        self.zeros = np.zeros(self.shape, np.float32)
        self.recorded = []
        for seed in range(games):
            state, turns = game.new_state(seed), []
            while not state.is_terminal():
                legal = tuple(state.legal_actions())
                turns.append(kept.setdefault(legal, legal))
                state.apply_action(rng.choice(legal))
            self.recorded.append(turns)

    def new_state(self, seed: int) -> _Replay:
        return _Replay(self.recorded[seed], self.num_players)

    def actions(self) -> tuple:
        return self.table

    def observation_shape(self) -> tuple[int, ...]:
        return self.shape

    def encode(self, observation: dict) -> np.ndarray:
        return self.zeros

    # (what the conformance check asks of a game; never played by it here)
    def snapshot(self, state: _Replay) -> int:
        return state.at

    def illegal_actions(self, state: _Replay, rng: random.Random) -> list:
        return []

    def leaks(self, state: _Replay, player: int, observation: dict) -> list[str]:
        return []


def replayed(name: str, games: int) -> str:
    """The name of ``name``'s replay, registered (once) for ``games`` games."""
    replay = _Replayed(name, games)
    if replay.name not in game_api.registered():
        game_api.REGISTRY.register(replay)
        openspiel.register(replay.name)
    return replay.name


LOOPS = {"native": native, "pettingzoo": through_pettingzoo, "openspiel": through_openspiel}


def rates(name: str, games: int, rounds: int = 3) -> dict[str, float]:
    """Steps per second of every loop over the game and over its replay (``<loop>_replay``),
    each its best of ``rounds``, the loops timed in turn."""
    replay = replayed(name, games)
    runs = {what: (loop, name) for what, loop in LOOPS.items()}
    runs |= {f"{what}_replay": (loop, replay) for what, loop in LOOPS.items()}
    best = dict.fromkeys(runs, 0.0)
    for loop, game in runs.values():
        loop(game, games)  # warm: kernels compiled
    for _ in range(rounds):
        for what, (loop, game) in runs.items():
            start = time.perf_counter()
            steps = loop(game, games)
            best[what] = max(best[what], steps / (time.perf_counter() - start))
    return best


def main() -> None:
    args = parser(__doc__.splitlines()[0]).parse_args()
    games = {"poker": 400, "mus": 6, "flagbots": 20, "eleusis": 4}
    if args.quick:
        games = {name: max(2, n // 4) for name, n in games.items()}
    rows, figures = [], {}
    for name in GAMES:
        got = rates(name, games[name], rounds=3 if args.quick else 5)
        base = got["native"]
        rows.append((f"{name}: native steps/s", base, "game_api with observations"))
        figures[f"{name}_native_steps_per_s"] = round(base)
        for bridge in ("pettingzoo", "openspiel"):
            cost = base / got[bridge]
            # the bridge's own time a step (its replay's, less the replay's native loop): the
            # least the bridge could cost this game with rules and encoding for free
            own = 1 / got[f"{bridge}_replay"] - 1 / got["native_replay"]
            floor = 1 + own * base
            note = f"{cost:.2f}x the native loop; its own work alone {floor:.2f}x"
            rows.append((f"{name}: {bridge} steps/s", got[bridge], note))
            figures[f"{name}_{bridge}_cost"] = round(cost, 3)
            figures[f"{name}_{bridge}_floor"] = round(floor, 3)
    report("interop", rows, figures)


if __name__ == "__main__":
    main()
