"""``sparring arena``: a contest of any agents (``pipelines/arena.py``) from the command line.

Everything after ``arena`` is Hydra's:
``sparring arena game=flagbots agent='cmd:python3 examples/agents/random_bot.py'
'field=["flagbots@depth=2",first]'`` (a value holding ``=`` is quoted), ``sparring arena --help``.
"""

from __future__ import annotations

from sparring.cli.hydra_pipeline import HydraCommand
from sparring.games import GAMES

# the built-in games from their table (reading the whole registry, plugins and all, would scan
# the installed distributions' metadata on every `sparring` command: ~50 ms)
COMMAND = HydraCommand(
    "arena",
    "any agent against any other (py:module:Class, cmd:<program>, acpc:<ACPC poker program>, "
    f"Sparring's own, openspiel:<bot>) in {', '.join(GAMES)}, a plugin's game or any OpenSpiel "
    "game (openspiel:<game>): a gauntlet, a round robin or "
    "an SPRT head-to-head, sandboxed, "
    "fanned out on Ray (pipelines/arena.py; Hydra overrides follow, e.g. game=flagbots "
    "agent=random 'field=[first]')",
    "sparring.pipelines.arena:run",
)
register, script, run = COMMAND.register, COMMAND.script, COMMAND.run
