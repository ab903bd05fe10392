"""An entrant's name (metric keys, tables, hand histories): unique within its contest, readable,
and the same whatever order the entrants are listed in."""

from __future__ import annotations

import itertools

import pytest

from sparring.arena.agents import short_name, short_names
from sparring.runtime.config import metric_name


@pytest.mark.parametrize(
    ("specs", "names"),
    [
        # #46: both were "a.game" (one rating, one metric key)
        (["acpc:./player a.game", "acpc:./other_player a.game"],
         ["player a.game", "other_player a.game"]),
        # both were "bot.py"; the third is alone and keeps its short name
        (["cmd:python3 x/bot.py", "cmd:python3 y/bot.py", "cmd:python3 z/other.py"],
         ["x/bot.py", "y/bot.py", "other.py"]),
        # as far back as they are alike
        (["cmd:python3 a/x/bot.py", "cmd:python3 b/x/bot.py", "cmd:python3 c/bot.py"],
         ["a/x/bot.py", "b/x/bot.py", "c/bot.py"]),
        (["cmd:python3 -O bot.py", "cmd:python3 bot.py"], ["-O bot.py", "python3 bot.py"]),
        # a whole command line alike: the kind tells them apart
        (["cmd:random", "random", "acpc:random"], ["cmd_random", "random", "acpc_random"]),
        # nothing alike: the short names, as before
        (["cmd:python3 x/bot.py", "poker@maniac", "py:m.bots:Caller"],
         ["bot.py", "poker@maniac", "py_m.bots_Caller"]),
    ],
)  # fmt: skip
def test_names_are_unique_readable_and_independent_of_order(specs, names):
    assert short_names(specs) == names
    alone = [s for s in specs if [short_name(o) for o in specs].count(short_name(s)) == 1]
    assert all(names[specs.index(s)] == short_name(s) for s in alone)  # kept as before
    for order in itertools.permutations(range(len(specs))):
        assert short_names([specs[i] for i in order]) == [names[i] for i in order]
    keys = [metric_name("rating", n) for n in names]
    assert len(set(keys)) == len(keys)  # one metric key each


def test_a_long_name_is_cut_in_the_middle_to_fit_a_metric_key():
    game = "/home/someone/contests/acpc/games/holdem.limit.2p.reverse_blinds.game"
    names = short_names([f"acpc:./player {game}", f"acpc:./other_player {game}"])
    assert names == [
        "player...holdem.limit.2p.reverse_blinds.game",
        "other_player...holdem.limit.2p.reverse_blinds.game",
    ]
    assert len(metric_name("pair", *names, "score")) <= 250  # MLflow's longest metric key
