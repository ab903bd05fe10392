"""Train a small agent on a Sparring game through PettingZoo's AEC API.

The loop any PettingZoo learner runs, here with the smallest learner that learns: a linear
softmax policy over the legal actions (the action mask), trained by REINFORCE with a running
baseline, in seat 0 against a uniformly random opponent. Any registered game with the bridge
works (``--game flagbots``, ``--game mus``); poker's hands are short, so it learns in seconds.

    .venv/bin/python examples/train_pettingzoo.py --game poker --episodes 2000

It prints the mean reward of seat 0 over each tenth of the episodes, and at the end the same
policy's mean reward next to a random policy's, on the same deals.
"""

from __future__ import annotations

import argparse

import numpy as np

from sparring.interop.pettingzoo import env


class LinearPolicy:
    """Softmax over the legal actions of ``weights @ observation``."""

    def __init__(self, actions: int, inputs: int, rng: np.random.Generator) -> None:
        self.weights = np.zeros((actions, inputs))
        self.rng = rng

    def probabilities(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        logits = np.where(mask > 0, self.weights @ x, -np.inf)
        p = np.exp(logits - logits.max())
        return p / p.sum()

    def act(self, x: np.ndarray, mask: np.ndarray) -> tuple[int, np.ndarray]:
        p = self.probabilities(x, mask)
        return int(self.rng.choice(len(p), p=p)), p


def episode(aec, seed: int, choose, rng: np.random.Generator) -> tuple[float, list]:
    """One game from ``new_state(seed)``: seat 0 acts by ``choose(x, mask)``, the other seats
    at random; seat 0's reward and its (input, action, probabilities) steps."""
    aec.reset(seed=seed)
    total, steps = 0.0, []
    for agent in aec.agent_iter():
        observation, reward, terminated, truncated, _ = aec.last()
        if agent == "player_0":
            total += reward
        if terminated or truncated:
            aec.step(None)
            continue
        mask = observation["action_mask"]
        if agent == "player_0":
            x = observation["observation"].ravel()
            action, p = choose(x, mask)
            steps.append((x, action, p))
        else:
            action = int(rng.choice(np.flatnonzero(mask)))
        aec.step(action)
    return total, steps


def train(game: str, episodes: int, seed: int, rate: float) -> tuple[float, float]:
    """Train; returns (the trained policy's mean reward, a random policy's) over 200 games
    dealt from seeds the training never saw."""
    aec = env(game)
    aec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    inputs = int(np.prod(aec.observation_space("player_0")["observation"].shape))
    policy = LinearPolicy(aec.action_space("player_0").n, inputs, rng)
    baseline, rewards = 0.0, []
    for k in range(episodes):
        reward, steps = episode(aec, seed + k, policy.act, rng)
        advantage = reward - baseline
        baseline += 0.01 * (reward - baseline)
        for x, action, p in steps:  # the gradient of log p[action]: (one-hot - p) x^T
            grad = -np.outer(p, x)
            grad[action] += x
            policy.weights += rate * advantage * grad
        rewards.append(reward)
        if (k + 1) % max(1, episodes // 10) == 0:
            recent = rewards[-max(1, episodes // 10) :]
            print(f"episodes {k + 1 - len(recent) + 1}-{k + 1}: mean reward {np.mean(recent):+.3f}")

    def uniform(x: np.ndarray, mask: np.ndarray) -> tuple[int, np.ndarray]:
        return int(rng.choice(np.flatnonzero(mask))), mask

    held_out = range(10**6, 10**6 + 200)
    trained = np.mean([episode(aec, s, policy.act, rng)[0] for s in held_out])
    chance = np.mean([episode(aec, s, uniform, rng)[0] for s in held_out])
    return float(trained), float(chance)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="poker", help="a registered game (default: poker)")
    parser.add_argument("--episodes", type=int, default=2000, help="games to train on")
    parser.add_argument("--seed", type=int, default=0, help="the first game's seed")
    parser.add_argument("--rate", type=float, default=0.01, help="the learning rate")
    args = parser.parse_args(argv)
    trained, chance = train(args.game, args.episodes, args.seed, args.rate)
    print(f"held-out games: the trained policy {trained:+.3f}, a random policy {chance:+.3f}")


if __name__ == "__main__":
    main()
