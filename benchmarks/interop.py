"""What the bridges cost: steps/s of random games through the PettingZoo environment and the
OpenSpiel game, against Sparring's native ``game_api`` loop, in one run (goal: at most 2x).

The same games (seeds 0..n-1) and the same random choices in all three: each step picks a legal
action uniformly, and the bridges add what a learner sees at each step (the PettingZoo
observation with its mask; OpenSpiel's legal actions and observation tensor).

    .venv/bin/python benchmarks/interop.py [--quick]
"""

from __future__ import annotations

import random
import time

from _common import parser, report

from sparring import game_api
from sparring.interop import openspiel  # noqa: F401 (registers python_sparring_<name>)
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


def rate(fn, name: str, games: int) -> float:
    """Steps per second, the best of three."""
    best = 0.0
    for _ in range(3):
        start = time.perf_counter()
        steps = fn(name, games)
        best = max(best, steps / (time.perf_counter() - start))
    return best


def main() -> None:
    args = parser(__doc__.splitlines()[0]).parse_args()
    games = {"poker": 400, "mus": 6, "flagbots": 20, "eleusis": 4}
    if args.quick:
        games = {name: max(2, n // 4) for name, n in games.items()}
    rows, figures = [], {}
    for name in GAMES:
        base = rate(native, name, games[name])
        for bridge, fn in (("pettingzoo", through_pettingzoo), ("openspiel", through_openspiel)):
            steps = rate(fn, name, games[name])
            cost = base / steps
            rows.append((f"{name}: {bridge} steps/s", steps, f"{cost:.2f}x the native loop"))
            figures[f"{name}_{bridge}_cost"] = round(cost, 3)
        rows.append((f"{name}: native steps/s", base, "game_api with observations"))
        figures[f"{name}_native_steps_per_s"] = round(base)
    report("interop", rows, figures)


if __name__ == "__main__":
    main()
