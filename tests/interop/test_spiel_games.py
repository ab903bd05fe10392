"""Any OpenSpiel game as a Sparring game (``sparring.interop.spiel_games``, the registry's
``openspiel`` family): the conformance check on every game it takes, a game as a pure function of
(seed, actions), one-line refusals of names OpenSpiel does not know or parameters it refuses,
and OpenSpiel's bots as agents (their specs, the games they fit, their play for a seed)."""

from __future__ import annotations

import json
import subprocess
import sys

import pyspiel
import pytest

from sparring import game_api
from sparring.arena.agents import parse
from sparring.arena.play import play_game
from sparring.conformance import check_random_games
from sparring.game_api import TERMINAL, IllegalActionError
from sparring.interop import spiel_games
from sparring.runtime.errors import ConfigError

# OpenSpiel's games whose random games run for many thousands of moves: the check would take
# minutes for one game (shogi: over 10 s a game on 2 cores), and it checks nothing new there
LONG_GAMES = ("shogi",)
SURVEY = """
import json, sys
import pyspiel
from sparring import game_api
from sparring.conformance import check_random_games
taken, refused, failed = [], {}, {}
for name in sorted(pyspiel.registered_names()):
    if name.startswith("python_") or name in sys.argv[1:]:
        continue
    why = game_api.refusal(f"openspiel:{name}")
    if why is not None:
        refused[name] = why
        continue
    try:
        check_random_games(game_api.get(f"openspiel:{name}"), 2, seed=1)
        taken.append(name)
    except Exception as exc:
        failed[name] = f"{type(exc).__name__}: {exc}"
print(json.dumps({"taken": taken, "refused": refused, "failed": failed}))
"""


@pytest.mark.slow
def test_every_openspiel_game_the_family_takes_passes_the_conformance_check():
    """Every game OpenSpiel registers, through the ``openspiel`` family, in a process of its
    own as a user's (what else a process imported may register more games: OpenSpiel's Python
    ones): each is either taken and passes two random games of Sparring's conformance check
    (deterministic ones, chance ones, imperfect information through observations), or refused
    in one line that says why (simultaneous moves, a game that lists no actions, one that
    needs parameters)."""
    done = subprocess.run([sys.executable, "-c", SURVEY, *LONG_GAMES], capture_output=True,
                          text=True, timeout=900)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    survey = json.loads(done.stdout.strip().splitlines()[-1])
    assert survey["failed"] == {}
    for name, why in survey["refused"].items():
        assert "\n" not in why and why.startswith("a registered game"), (name, why)
    taken = set(survey["taken"])
    assert len(taken) >= 80, sorted(taken)  # (OpenSpiel 2.0.2 has 84 sequential games it loads)
    assert "lists no actions" in survey["refused"]["crossword"]
    assert {"chess", "go", "kuhn_poker", "leduc_poker", "tic_tac_toe", "backgammon"} <= taken


@pytest.mark.parametrize(
    "name, games",
    [("tic_tac_toe", 30), ("connect_four", 10), ("kuhn_poker", 30), ("leduc_poker", 20)],
)
def test_openspiel_games_pass_the_conformance_check(name, games):
    game = game_api.get(f"openspiel:{name}")
    report = check_random_games(game, games, seed=3)
    assert report.games == games and report.refused > report.steps > games


def test_the_family_is_reached_through_the_registry_and_not_listed():
    game = game_api.get("openspiel:leduc_poker(players=3)")
    assert game is game_api.get("openspiel:leduc_poker(players=3)")  # made once, then kept
    assert game.name == "openspiel:leduc_poker(players=3)" and game.num_players == 3
    assert "openspiel" in game_api.REGISTRY.families()
    assert not any(n.startswith("openspiel") for n in game_api.registered())
    assert game_api.refusal("openspiel:tic_tac_toe") is None and game_api.refusal("mus") is None
    assert game_api.trait("openspiel:tic_tac_toe", "agent_kinds") == ("openspiel",)


def test_the_game_type_is_read():
    ttt, kuhn = game_api.get("openspiel:tic_tac_toe"), game_api.get("openspiel:kuhn_poker")
    assert ttt.constant_sum == 0.0 and ttt.perfect_information and ttt.opening_plies == 2
    assert kuhn.constant_sum == 0.0 and not kuhn.perfect_information and kuhn.opening_plies == 0
    assert game_api.get("openspiel:catch").constant_sum is None  # general-sum, one player


def test_chance_comes_from_the_seed_and_a_game_from_seed_and_actions():
    game = game_api.get("openspiel:leduc_poker")
    deals = {tuple(game.new_state(seed).spiel_state.history()) for seed in range(40)}
    assert len(deals) > 10  # the seed deals the cards
    for seed in range(5):
        a, b = game.new_state(seed), game.new_state(seed)
        while not a.is_terminal():
            assert a.current_player() != pyspiel.PlayerId.CHANCE
            action = a.legal_actions()[-1]
            twin = a.clone()
            a.apply_action(action)
            b.apply_action(action)
            twin.apply_action(action)  # (a clone draws the same chance)
            assert game.snapshot(a) == game.snapshot(b) == game.snapshot(twin)
        assert a.current_player() == TERMINAL and a.returns() == b.returns()
        assert sum(a.returns()) == 0


def test_observations_are_the_seats_and_history_only_where_it_is_public():
    ttt = game_api.get("openspiel:tic_tac_toe").new_state(0)
    ttt.apply_action(4)
    assert ttt.observation(1) == {"observation": "...\n.x.\n...", "history": [4]}
    kuhn = game_api.get("openspiel:kuhn_poker").new_state(1)
    seen = [kuhn.observation(p) for p in range(2)]
    assert all(set(s) == {"observation"} for s in seen)  # each its own card, no history
    assert seen[0] != seen[1]


@pytest.mark.parametrize("junk", [True, False, 4.0, "4", None, [4], -1, 9, 10**12])
def test_anything_but_a_legal_int_is_refused_and_changes_nothing(junk):
    game = game_api.get("openspiel:tic_tac_toe")
    state = game.new_state(0)
    before = game.snapshot(state)
    with pytest.raises(IllegalActionError):
        state.apply_action(junk)
    assert game.snapshot(state) == before


@pytest.mark.parametrize(
    "name, says",
    [
        ("openspiel:no_such_game", "OpenSpiel has no game 'no_such_game'"),
        ("openspiel:tic_tac_to", "close: tic_tac_toe"),
        ("openspiel:leduc_poker(players=20)", "num_players_ = 20"),
        ("openspiel:leduc_poker(foo=1)", "Unknown parameter 'foo'"),
        ("openspiel:matrix_rps", "a simultaneous-move game, not a game of turns"),
        ("nope", "or openspiel:<game>"),
    ],
)
def test_a_name_that_is_no_game_is_refused_in_one_line(name, says):
    refused = game_api.refusal(name)
    assert refused is not None and says in refused and "\n" not in refused
    assert refused.startswith("a registered game (poker, mus, flagbots, eleusis")


def test_openspiel_says_nothing_on_stderr_when_it_refuses():
    code = "from sparring import game_api; print(game_api.refusal('openspiel:kuhn_poker(x=1)'))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0 and "Unknown parameter 'x'" in done.stdout
    assert done.stderr == ""


# --- the bots --------------------------------------------------------------------------------


def test_bot_specs_are_read_with_their_defaults():
    assert spiel_games.parse_bot("openspiel:mcts:simulations=200,uct_c=2,seed=1") == (
        "mcts", {"simulations": 200, "uct_c": 2.0, "rollouts": 1, "seed": 1}
    )  # fmt: skip
    assert spiel_games.parse_bot("openspiel:uniform_random") == ("uniform_random", {"seed": 0})
    assert parse("openspiel:mcts").kind == "openspiel"


@pytest.mark.parametrize(
    "text, says",
    [
        ("openspiel:alphazero", "openspiel:mcts[:simulations=<n>,uct_c=<x>,rollouts=<n>,seed=<n>]"),
        ("openspiel:mcts:simulations=0", "simulations=0 is not an integer in 1..1000000"),
        ("openspiel:mcts:uct_c=-1", "uct_c=-1 is not a number > 0"),
        ("openspiel:mcts:depth=3", "one of simulations, uct_c, rollouts, seed"),
        ("openspiel:uniform_random:seed=1,seed=2", "each param once"),
    ],
)
def test_a_bad_bot_spec_is_one_line(text, says):
    with pytest.raises(ConfigError) as error:
        parse(text)
    assert says in str(error.value) and "\n" not in str(error.value)


@pytest.mark.parametrize(
    "spec, game, says",
    [
        ("openspiel:mcts", "openspiel:kuhn_poker", "a game of perfect information"),
        ("openspiel:mcts", "flagbots", "an agent of flagbots (openspiel:mcts plays openspiel:<"),
        ("openspiel:uniform_random", "poker", "plays openspiel:<game>"),
        ("acpc:true", "openspiel:leduc_poker", "of openspiel:leduc_poker (acpc:true plays poker"),
        ("flagbots@depth=1", "openspiel:tic_tac_toe", "plays flagbots"),
    ],
)  # fmt: skip
def test_an_agent_that_does_not_fit_the_game_is_told_why(spec, game, says):
    unfit = parse(spec).unfit(game)
    assert unfit is not None and says in unfit


@pytest.mark.parametrize(
    "spec, game",
    [("openspiel:mcts:simulations=20", "openspiel:tic_tac_toe"),
     ("openspiel:uniform_random", "openspiel:kuhn_poker"), ("random", "openspiel:kuhn_poker"),
     ("openspiel:uniform_random", "openspiel:connect_four")],
)  # fmt: skip
def test_an_agent_that_fits_is_let_through(spec, game):
    assert parse(spec).unfit(game) is None


def _play(spec: str, game_name: str, seed: int, secret: bytes = b"s" * 32) -> list:
    from sparring.arena.agents import make
    from sparring.runtime.programs.program import Limits

    game = game_api.get(game_name)
    agents = [make(parse(spec), Limits()), make(parse("random"), Limits())]
    record = play_game(game, agents, seed, names=[spec, "random"], secret=secret)
    assert record.forfeit_seat is None, record.forfeit_detail
    return [record.actions, record.returns]


@pytest.mark.parametrize(
    "spec, game",
    [("openspiel:mcts:simulations=30", "openspiel:tic_tac_toe"),
     ("openspiel:mcts:simulations=10,rollouts=2", "openspiel:connect_four"),
     ("openspiel:uniform_random:seed=4", "openspiel:leduc_poker")],
)  # fmt: skip
def test_a_bot_plays_the_same_for_the_same_seeds(spec, game):
    first = [_play(spec, game, seed) for seed in range(3)]
    assert first == [_play(spec, game, seed) for seed in range(3)]
    assert len({str(p[0]) for p in first}) > 1  # (the seed matters)


def test_mcts_beats_random_at_tic_tac_toe():
    returns = [_play("openspiel:mcts:simulations=50", "openspiel:tic_tac_toe", s)[1][0]
               for s in range(10)]  # fmt: skip
    assert sum(r > 0 for r in returns) >= 8 and min(returns) >= 0


def test_a_bot_outside_its_games_fails_at_its_start():
    bot = spiel_games.SpielBotAgent("openspiel:mcts")
    with pytest.raises(ValueError, match="plays OpenSpiel's games"):
        bot.start({"game": "flagbots", "seat": 0, "seed": 1})
    with pytest.raises(ValueError, match="perfect information"):
        bot.start({"game": "openspiel:kuhn_poker", "seat": 0, "seed": 1})
