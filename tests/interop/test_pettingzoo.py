"""Every game with the bridge methods as a PettingZoo AEC environment: PettingZoo's own
``api_test`` and ``seed_test``, returns equal to the game's, the masks equal to its legal
actions, and one-line refusals (an illegal action, a game without the bridge)."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from sparring import game_api
from sparring.game_api import Registry
from sparring.interop.pettingzoo import BRIDGE, env, raw_env
from tests.helpers.nim import NimState


class Nim:
    name = "nim"
    num_players = 2
    constant_sum = 0.0

    def new_state(self, seed: int) -> NimState:
        return NimState(10 + seed % 7)

    def snapshot(self, state):  # (the conformance check's; unused here)
        return state.stones, state.player, state.last

    def illegal_actions(self, state, rng):
        return [0, 4]

    def leaks(self, state, player, observation):
        return []

    # the bridge
    def actions(self) -> list[int]:
        return [1, 2, 3]

    def observation_shape(self) -> tuple[int, ...]:
        return (2,)

    def encode(self, observation: dict) -> np.ndarray:
        return np.array([observation["stones"] / 16, observation["to_move"]], np.float32)


class Unbridged(Nim):
    name = "unbridged"
    actions = None  # type: ignore[assignment]


@pytest.fixture(autouse=True)
def registry(monkeypatch):
    """The built-in games and the two above, in a registry of this test's own."""
    mine = Registry(builtin="sparring.games:GAMES", declared="sparring.games:TRAITS")
    monkeypatch.setattr(game_api, "REGISTRY", mine)
    mine.register(Nim())
    mine.register(Unbridged())
    return mine


def bridged() -> list[str]:
    """The built-in games that offer the bridge (all of them, once #50's encodings land)."""
    return [
        name
        for name in ("poker", "mus", "flagbots", "eleusis")
        if all(callable(getattr(game_api.REGISTRY.get(name), m, None)) for m in BRIDGE)
    ]


GAMES = ["nim", "poker", "mus", "flagbots", "eleusis"]


def _skip_without_bridge(name: str) -> None:
    if not all(callable(getattr(game_api.get(name), m, None)) for m in BRIDGE):
        pytest.skip(f"{name} does not offer the bridge methods yet")


@pytest.mark.parametrize("name", GAMES)
def test_pettingzoos_api_test_passes(name, capsys):
    _skip_without_bridge(name)
    api_test(env(name), num_cycles=200)
    assert "Passed API test" in capsys.readouterr().out


@pytest.mark.parametrize("name", GAMES)
def test_pettingzoos_seed_test_passes(name):
    _skip_without_bridge(name)
    seed_test(lambda: env(name), num_cycles=200)


def _play(aec, seed: int, pick) -> tuple[list, dict[str, float]]:
    """Play one game to its end with ``pick(mask)``; the actions taken and the final rewards."""
    aec.reset(seed=seed)
    taken, total = [], dict.fromkeys(aec.possible_agents, 0.0)
    for agent in aec.agent_iter():
        obs, reward, done, cut, _ = aec.last()
        total[agent] += reward
        if done or cut:
            aec.step(None)
            continue
        action = pick(obs["action_mask"])
        taken.append(action)
        aec.step(action)
    return taken, total


@pytest.mark.parametrize("name", GAMES)
def test_a_game_through_the_environment_is_the_game_itself(name):
    """The masks are the legal actions, and the rewards at the end are the game's returns for
    the same seed and actions."""
    _skip_without_bridge(name)
    game = game_api.get(name)
    aec = raw_env(name)
    rng = np.random.default_rng(7)
    for seed in range(3):
        state = game.new_state(seed)

        def pick(mask, state=state):
            legal = [aec.index[a] for a in state.legal_actions()]
            assert sorted(np.flatnonzero(mask)) == sorted(legal)  # the mask is the rules
            chosen = int(rng.choice(np.flatnonzero(mask)))
            state.apply_action(aec.table[chosen])
            return chosen

        _, rewards = _play(aec, seed, pick)
        assert state.is_terminal()
        assert [rewards[f"player_{s}"] for s in range(game.num_players)] == pytest.approx(
            list(state.returns())
        )


def test_an_illegal_action_is_refused_naming_the_legal_ones():
    aec = raw_env("nim")
    aec.reset(seed=0)  # 10 stones: every action legal; take 3 until 1 is left
    for _ in range(3):
        aec.step(2)
    with pytest.raises(ValueError, match=r"action 2 is not legal for player_1 now; legal: 0"):
        aec.step(2)
    aec.step(0)  # the control: the legal one is taken
    assert aec.terminations["player_0"]


def test_a_game_without_the_bridge_is_refused_naming_what_it_lacks():
    with pytest.raises(ValueError, match="'unbridged' cannot be bridged: its Game lacks actions"):
        env("unbridged")


def test_an_unknown_option_is_refused_naming_the_allowed():
    with pytest.raises(ValueError, match="unknown options colour; allowed: seats, variant"):
        env("nim", colour="red")


def test_the_training_example_runs_as_a_user_runs_it(tmp_path):
    """examples/train_pettingzoo.py, a separate process: the PettingZoo loop on poker, seconds."""
    import re
    import subprocess
    import sys

    from tests.helpers.commands import ROOT

    _skip_without_bridge("poker")
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "train_pettingzoo.py"), "--episodes", "200"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 11 and lines[0].startswith("episodes 1-20: mean reward "), lines
    assert re.fullmatch(
        r"held-out games: the trained policy [+-]\d+\.\d{3}, a random policy [+-]\d+\.\d{3}",
        lines[-1],
    ), lines[-1]
    assert not any(tmp_path.iterdir())  # it writes nothing


def test_the_guides_loop_runs_as_pasted():
    from tests.helpers.docs import page, section

    _skip_without_bridge("poker")
    text = section(page("guides/rl-libraries.md"), "## PettingZoo: every game an AEC environment")
    code = text.split("```python\n")[1].split("```")[0]
    namespace: dict = {}
    exec(compile(code, "docs/guides/rl-libraries.md", "exec"), namespace)  # the guide's own code
    assert namespace["aec"].agents == []  # every agent stepped out: the game played to its end


@pytest.mark.parametrize(
    ("module", "package", "extra"),
    [("sparring.interop.pettingzoo", "pettingzoo", "pettingzoo"),
     ("sparring.interop.openspiel", "pyspiel", "openspiel")],
)  # fmt: skip
def test_without_its_extra_a_bridge_says_in_one_line_which_to_install(module, package, extra):
    """A separate process where the package cannot be imported: one line naming the extra."""
    import subprocess
    import sys

    code = f"import sys; sys.modules[{package!r}] = None; import {module}"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last == (
        f"ImportError: {module} needs {'PettingZoo' if extra == 'pettingzoo' else 'OpenSpiel'}: "
        f"pip install 'sparring[{extra}]' (in a checkout: uv sync --extra {extra})"
    ), done.stderr[-1500:]
    control = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True,
                             text=True, timeout=120)  # fmt: skip
    assert control.returncode == 0, control.stderr[-1500:]  # with the extra: it imports
