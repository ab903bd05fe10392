"""A game from another distribution is a plugin (#49): a tiny Nim in a temporary package,
registered through the entry point group ``sparring.games`` (its ``.dist-info`` on the
``PYTHONPATH``, as an installed distribution's is on ``sys.path``), passes the conformance check
and plays a gauntlet, a round robin with an outside program, and an SPRT in the arena, with its
records. No file of Sparring is edited; every step runs as a separate process, as a user's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from tests.helpers.commands import ROOT, run_pipeline

NIM = '''
"""Nim: a heap of 10..16 stones (from the seed); a move takes 1, 2 or 3; who takes the last
stone wins."""

from sparring.game_api import TERMINAL, IllegalActionError


class NimState:
    def __init__(self, stones, player=0, last=None):
        self.stones, self.player, self.last = stones, player, last

    def current_player(self):
        return TERMINAL if self.stones == 0 else self.player

    def legal_actions(self):
        return [k for k in (1, 2, 3) if k <= self.stones]

    def apply_action(self, action):
        if type(action) is not int or action not in self.legal_actions():
            raise IllegalActionError(f"{action!r}: take 1, 2 or 3 stones, at most {self.stones}")
        self.stones -= action
        self.last, self.player = self.player, 1 - self.player

    def is_terminal(self):
        return self.stones == 0

    def returns(self):
        if self.stones:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.last == 0 else [-1.0, 1.0]

    def observation(self, player):
        return {"stones": self.stones, "to_move": self.player}

    def clone(self):
        return NimState(self.stones, self.player, self.last)


class Nim:
    name = "nim"
    num_players = 2
    constant_sum = 0.0
    commands = "nim_game:commands"  # its own command: sparring play nim

    def new_state(self, seed):
        return NimState(10 + seed % 7)

    def snapshot(self, state):
        return state.stones, state.player, state.last

    def illegal_actions(self, state, rng):
        return [0, 4, "1", 2.0]

    def leaks(self, state, player, observation):
        return []


class Perfect:
    """Leaves a multiple of four stones whenever it can."""

    def act(self, observation, legal):
        best = observation["stones"] % 4
        return best if best in legal else legal[0]


def commands(top, groups):
    """``sparring play nim``: Nim against the perfect player, a move a line."""
    play = groups["play"].add_parser("nim", help="Nim against the perfect player")
    play.add_argument("--stones", type=int, default=10, help="the heap (default 10)")
    play.set_defaults(func=play_nim)


def play_nim(args):
    state, bot = NimState(args.stones), Perfect()
    while not state.is_terminal():
        if state.current_player() == 0:
            state.apply_action(int(input(f"{state.stones} stones, take 1-3: ")))
        else:
            state.apply_action(bot.act(state.observation(1), state.legal_actions()))
    print("you win" if state.returns()[0] > 0 else "the perfect player wins")
    return 0


GAME = Nim()
'''


@pytest.fixture(scope="module")
def plugin(tmp_path_factory) -> dict[str, str]:
    """The environment of a user who installed the ``nim-game`` distribution."""
    site = tmp_path_factory.mktemp("site")
    (site / "nim_game.py").write_text(textwrap.dedent(NIM))
    info = site / "nim_game-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: nim-game\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[sparring.games]\nnim = nim_game:GAME\n")
    return {"PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}


def test_the_guides_module_is_the_one_this_test_installs():
    """docs/guides/add-a-game.md shows the plugin's module whole: the one proved here."""
    from tests.helpers.docs import page

    text = page("guides/add-a-game.md")
    shown = text.split('```python title="../nim-game/nim_game.py"\n', 1)[1].split("```", 1)[0]
    assert shown == textwrap.dedent(NIM).strip() + "\n"


def test_the_plugin_passes_the_conformance_check(plugin, tmp_path):
    code = (
        "from sparring import conformance, game_api\n"
        "assert 'nim' in game_api.registered(), game_api.registered()\n"
        "report = conformance.check_registered(50)['nim']\n"
        "print(report.games, report.steps, report.refused)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300, env={**os.environ, **plugin})  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    games, steps, refused = map(int, done.stdout.split())
    assert games == 50 and steps > 100 and refused > steps  # every step refused the junk


def test_the_plugin_adds_its_own_command_to_sparring(plugin, tmp_path):
    """Its ``commands`` trait: ``sparring play nim`` is on the command line beside the
    built-in games' (and only where the plugin is installed)."""
    sparring = [str(ROOT / ".venv" / "bin" / "sparring")]
    env = {**os.environ, **plugin}
    listed = subprocess.run([*sparring, "play", "--help"], capture_output=True, text=True,
                            cwd=tmp_path, env=env, timeout=120)  # fmt: skip
    assert listed.returncode == 0 and "nim" in listed.stdout and "flagbots" in listed.stdout
    # 5 stones: take 1 (4 left, a loss for the mover), the bot takes 1, take the last 3
    done = subprocess.run([*sparring, "play", "nim", "--stones", "5"], input="1\n3\n",
                          capture_output=True, text=True, cwd=tmp_path, env=env,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith("you win"), done.stdout
    without = subprocess.run([*sparring, "play", "nim"], capture_output=True, text=True,
                             cwd=tmp_path, timeout=120)  # fmt: skip
    assert without.returncode == 2 and "invalid choice: 'nim'" in without.stderr


def _contest(tmp_path: Path, plugin: dict[str, str], *args: str) -> dict:
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    done = run_pipeline("arena", "game=nim", *args, f"output_dir={tmp_path / 'arena'}",
                        f"tracking.uri={uri}", cwd=tmp_path, env=plugin, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    client = MlflowClient(uri)
    runs = client.search_runs([client.get_experiment_by_name("arena").experiment_id],
                              order_by=["attributes.start_time DESC"])  # fmt: skip
    run = runs[0]
    out = tmp_path / f"artifacts-{len(runs)}"
    out.mkdir()
    return {
        "metrics": run.data.metrics,
        "tags": run.data.tags,
        "games.txt": Path(client.download_artifacts(run.info.run_id, "games.txt", str(out)))
        .read_text(),
        "games": [json.loads(line) for line in Path(client.download_artifacts(
            run.info.run_id, "games.jsonl", str(out))).read_text().splitlines()],
        "stdout": done.stdout,
    }  # fmt: skip


def test_the_plugin_plays_a_gauntlet_a_round_robin_and_an_sprt(plugin, tmp_path):
    bot = f"cmd:{sys.executable} {ROOT / 'examples' / 'agents' / 'random_bot.py'}"

    gauntlet = _contest(tmp_path, plugin, "agent=py:nim_game:Perfect", "field=[random,first]",
                        "units=4", "block=2")  # fmt: skip
    # Perfect wins every game it can: from 10..16 stones, all but the multiples of 4 as first
    assert gauntlet["metrics"]["pair/py_nim_game_Perfect/random/score"] >= 0.5
    assert "game 0: unit 0" in gauntlet["games.txt"] and "end: returns" in gauntlet["games.txt"]
    assert all(g["forfeit_seat"] is None for g in gauntlet["games"])

    robin = _contest(tmp_path, plugin, "kind=round_robin", f'field=[random,first,"{bot}"]',
                     "units=2", "block=2")  # fmt: skip
    program_games = [g for g in robin["games"] if bot in g["seats"]]
    assert program_games and all(g["forfeit_seat"] is None for g in program_games)
    assert {k for k in robin["metrics"] if k.startswith("rating/")} >= {"rating/random"}

    sprt = _contest(tmp_path, plugin, "kind=sprt", "agent=py:nim_game:Perfect",
                    "field=[random]", "units=10", "block=5", "sprt.elo1=200")  # fmt: skip
    assert sprt["tags"]["sprt_decision"] == "H1", sprt["stdout"]
