"""Every registered Sparring game as a PettingZoo AEC environment.

``env("flagbots")`` (any name of ``game_api.registered()``, options of the game such as
``seats=6`` for poker's table) is an ``AECEnv`` that RLlib, Tianshou or any library of the
PettingZoo API trains on:

- agents ``player_0 .. player_<n-1>``, the game's seats; the agent to act is the game's
  ``current_player()``;
- the action space is ``Discrete(len(game.actions()))``: an action is its index in the game's
  whole action set (``actions()``, fixed order);
- an observation is ``{"observation": game.encode(observation(seat)), "action_mask": ...}``:
  the seat's own view as numbers (made from what the seat may know, never from the state) and
  a 0/1 mask of the legal actions, all zero for an agent that is not to act;
- rewards are the game's ``returns()`` when it ends (poker: chips; Mus and FlagBots: +1/-1),
  0 before; every agent is then terminated. ``max_steps`` truncates a game early;
- ``reset(seed=s)`` plays the game of ``new_state(s)``: the same seed and actions give the same
  game, deals included; without a seed the environment draws one.

An action the mask forbids is a ``ValueError`` naming the legal ones (the game's rules, not a
silent forfeit). A game without the bridge methods is refused in one line naming them.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError:  # the optional extra: one line that says which
    raise ImportError(
        "sparring.interop.pettingzoo needs PettingZoo: pip install 'sparring[pettingzoo]' "
        "(in a checkout: uv sync --extra pettingzoo)"
    ) from None

from sparring import game_api
from sparring.game_api import TERMINAL

BRIDGE = ("actions", "observation_shape", "encode")
"""What a game's ``Game`` offers to be bridged (see the module docstring)."""


def bridged_game(name: str, **options: Any) -> Any:
    """The registered game ``name`` with ``options`` (``seats``: ``at_table``; ``variant``:
    ``with_variant``), checked to offer the bridge methods."""
    game = game_api.get(name)
    seats = options.pop("seats", None)
    variant = options.pop("variant", None)
    if options:
        raise ValueError(
            f"{name}: unknown options {', '.join(sorted(options))}; allowed: seats, variant"
        )
    if seats is not None:
        if not hasattr(game, "at_table"):
            raise ValueError(f"{name} is played at {game.num_players} seats only")
        game = game.at_table(int(seats))
    if variant is not None:
        if not hasattr(game, "with_variant"):
            raise ValueError(f"{name} has no variants")
        game = game.with_variant(variant)
    missing = [method for method in BRIDGE if not callable(getattr(game, method, None))]
    if missing:
        raise ValueError(
            f"the game {name!r} cannot be bridged: its Game lacks {', '.join(missing)} "
            "(sparring.interop)"
        )
    return game


class SparringEnv(AECEnv):
    """A Sparring game as an AEC environment (see the module docstring)."""

    RENDER_MODES: ClassVar[list[str]] = ["ansi"]

    def __init__(
        self,
        name: str,
        render_mode: str | None = None,
        max_steps: int | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode={render_mode!r}: allowed None or 'ansi'")
        self.game = bridged_game(name, **options)
        self.metadata = {
            "render_modes": self.RENDER_MODES,
            "name": f"sparring_{name}",
            "is_parallelizable": False,
        }
        self.render_mode, self.max_steps = render_mode, max_steps
        self.table = list(self.game.actions())
        self.index = {action: i for i, action in enumerate(self.table)}
        if len(self.index) != len(self.table):
            raise ValueError(f"{name}: actions() lists an action twice")
        self.possible_agents = [f"player_{seat}" for seat in range(self.game.num_players)]
        shape = tuple(self.game.observation_shape())
        view = spaces.Box(-np.inf, np.inf, shape, np.float32)
        mask = spaces.Box(0, 1, (len(self.table),), np.int8)
        self.observation_spaces = {
            agent: spaces.Dict({"observation": view, "action_mask": mask})
            for agent in self.possible_agents
        }
        self.action_spaces = {
            agent: spaces.Discrete(len(self.table)) for agent in self.possible_agents
        }
        self._seeds = np.random.default_rng()
        self._seeded_by: int | None = None
        self.state: Any = None
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        # the legal actions of the state as it is now (asked by observe and by step; the state
        # changes only in reset and step), and the masks of legal sets seen (most games offer
        # few distinct ones: Eleusis always all 52; bounded for those that offer many)
        self._legal: list[Any] | None = None
        self._masks: dict[tuple[Any, ...], np.ndarray] = {}

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seeded_by = int(seed)  # the draws of later resets without a seed start here
            game_seed = int(seed)
        else:
            if self._seeded_by is not None:  # (made only when asked: a reset with a seed,
                self._seeds = np.random.default_rng(self._seeded_by)  # the common case,
                self._seeded_by = None  # stays cheap)
            game_seed = int(self._seeds.integers(2**31))
        self.state = self.game.new_state(game_seed)
        self._legal = None
        self.steps = 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict] = {agent: {} for agent in self.agents}
        self._select()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        view = np.asarray(self.game.encode(self.state.observation(seat)), dtype=np.float32)
        if self.state.current_player() == seat:  # (TERMINAL once the game is over)
            mask = self._mask(self._legal_now()).copy()  # the caller's to keep or change
        else:
            mask = np.zeros(len(self.table), dtype=np.int8)
        return {"observation": view, "action_mask": mask}

    def _legal_now(self) -> list[Any]:
        if self._legal is None:
            self._legal = self.state.legal_actions()
        return self._legal

    def _mask(self, legal: list[Any]) -> np.ndarray:
        key = tuple(legal)
        mask = self._masks.get(key)
        if mask is None:
            mask = np.zeros(len(self.table), dtype=np.int8)
            mask[[self.index[action] for action in legal]] = 1
            if len(self._masks) >= 4096:
                self._masks.clear()
            self._masks[key] = mask
        return mask

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        legal = self._legal_now()
        chosen = (
            self.table[int(action)]
            if action is not None and 0 <= int(action) < len(self.table)
            else None
        )
        if chosen is None or chosen not in legal:
            allowed = ", ".join(str(self.index[a]) for a in legal)
            raise ValueError(f"action {action!r} is not legal for {agent} now; legal: {allowed}")
        self._cumulative_rewards[agent] = 0.0
        self.state.apply_action(chosen)
        self._legal = None
        self.steps += 1
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self.state.is_terminal():
            returns = self.state.returns()
            for seat, name in enumerate(self.possible_agents):
                self.rewards[name] = float(returns[seat])
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.max_steps is not None and self.steps >= self.max_steps:
            self.truncations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        self._select()

    def _select(self) -> None:
        """The agent to act: the game's player, or (the game over) the first still listed, for
        its last step."""
        player = self.state.current_player()
        if player != TERMINAL and not any(self.truncations.values()):
            self.agent_selection = self.possible_agents[player]
        else:
            self.agent_selection = self.agents[0] if self.agents else self.possible_agents[0]

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        player = self.state.current_player()
        seat = 0 if player == TERMINAL else player
        return json.dumps(self.state.observation(seat), sort_keys=True)

    def close(self) -> None:
        pass


def raw_env(name: str, **options: Any) -> SparringEnv:
    """The environment without PettingZoo's order checks."""
    return SparringEnv(name, **options)


def env(name: str, **options: Any) -> AECEnv:
    """The AEC environment of the registered game ``name`` (``seats=``, ``variant=``,
    ``max_steps=``, ``render_mode="ansi"``), wrapped in PettingZoo's order checks."""
    return wrappers.OrderEnforcingWrapper(raw_env(name, **options))
