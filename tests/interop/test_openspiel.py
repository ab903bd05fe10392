"""Every game with the bridge methods as an OpenSpiel game (``sparring.interop.openspiel``):
OpenSpiel's own ``random_sim_test``, a playout's returns equal to the game's for the same seed
and actions, the chance node over seeds, observation tensors equal to ``encode``, information
states of perfect recall, OpenSpiel's MCTS playing through the bridge, OpenSpiel's CFR solving
the smallest poker of Sparring's rules, and one-line refusals (a game without ``actions``, a
game past its declared bounds)."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import cfr, exploitability, mcts

from sparring import game_api
from sparring.game_api import Registry
from sparring.interop import openspiel as bridge
from tests.helpers.nim import NimState


class Unbridged:
    """Nim with the game protocol alone: 10..16 stones (from the seed), zero-sum."""

    name = "unbridged_nim"
    num_players = 2
    constant_sum = 0.0

    def new_state(self, seed: int) -> NimState:
        return NimState(10 + seed % 7)

    def snapshot(self, state):
        return state.stones, state.player, state.last

    def illegal_actions(self, state, rng):
        return [0, 4]

    def leaks(self, state, player, observation):
        return []


class Nim(Unbridged):
    """Nim with the bridge methods, and the bounds it declares."""

    name = "nim"
    utility_range = (-1.0, 1.0)
    max_game_length = 16

    def actions(self) -> tuple[int, ...]:
        return (1, 2, 3)

    def observation_shape(self) -> tuple[int, ...]:
        return (2, 17)

    def encode(self, observation: dict) -> np.ndarray:
        planes = np.zeros((2, 17), np.float32)
        planes[0, observation["stones"]] = 1.0
        planes[1, :] = observation["to_move"] == 1
        return planes


class OpenNim(Unbridged):
    """Nim declared of perfect information, with ``actions`` alone (no tensor)."""

    name = "open_nim"
    perfect_information = True

    def actions(self) -> list[int]:
        return [3, 2, 1]  # any fixed order: an action's id is its index here


TOYS = ("nim", "open_nim")
GAMES = [*TOYS, *game_api.registered()]
PARAMS: dict[str, dict] = {"eleusis": {"variant": "deck=dirichlet;harma=100;cap=40"}}
"""Parameters that keep a game's random playouts short (Eleusis' random scientist plays to the
cap of guesses)."""


@pytest.fixture(autouse=True)
def registry(monkeypatch):
    """The built-in games and the toys above, in a registry of this test's own."""
    mine = Registry(builtin="sparring.games:GAMES", declared="sparring.games:TRAITS")
    monkeypatch.setattr(game_api, "REGISTRY", mine)
    for game in (Nim(), OpenNim(), Unbridged()):
        mine.register(game)
    return mine


def _load(name: str, **params) -> bridge.SparringGame:
    """The game ``name`` through pyspiel (8 seeds unless told), skipped without ``actions``."""
    if not callable(getattr(game_api.get(name), "actions", None)):
        pytest.skip(f"{name} does not offer the bridge methods yet")
    game = pyspiel.load_game(
        bridge.register(name), {"num_seeds": 8, **PARAMS.get(name, {}), **params}
    )
    assert isinstance(game, bridge.SparringGame)
    return game


def test_importing_the_bridge_registers_every_game_and_imports_none():
    code = (
        "import sys, pyspiel; import sparring.interop.openspiel; from sparring import game_api; "
        "names = [n for n in pyspiel.registered_names() if n.startswith('python_sparring_')]; "
        "loaded = [m for m in sys.modules if m.split('.')[0] == 'numba' or m.startswith("
        "('sparring.poker', 'sparring.mus', 'sparring.flagbots', 'sparring.eleusis'))]; "
        "print(sorted(names) == sorted('python_sparring_' + n for n in game_api.registered()), "
        "len(names) >= 4, loaded)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True", "[]"]


@pytest.mark.parametrize("name", GAMES)
def test_openspiels_random_sim_test_passes(name):
    game = _load(name)
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


@pytest.mark.parametrize("name", GAMES)
def test_a_playout_is_the_game_itself(name):
    """The same seed and actions: the same players, legal actions, observations and returns."""
    game = _load(name)
    sparring, actions = game.sparring_game, list(game.sparring_game.actions())
    rng = random.Random(5)
    for seed in (0, 3):
        state, mirror = game.new_initial_state(), sparring.new_state(seed)
        state.apply_action(seed)
        while not mirror.is_terminal():
            assert state.current_player() == mirror.current_player()
            legal = state.legal_actions()
            assert [actions[a] for a in legal] == sorted(mirror.legal_actions(), key=actions.index)
            action = rng.choice(legal)
            state.apply_action(action)
            mirror.apply_action(actions[action])
        assert state.is_terminal() and state.current_player() == pyspiel.PlayerId.TERMINAL
        assert state.returns() == pytest.approx([float(r) for r in mirror.returns()])
        for p in range(game.num_players()):
            text = json.dumps(mirror.observation(p), sort_keys=True)
            assert state.observation_string(p) == text


@pytest.mark.parametrize("name", GAMES)
def test_the_chance_node_draws_a_seed(name):
    game = _load(name, num_seeds=5)
    root = game.new_initial_state()
    assert root.is_chance_node() and root.current_player() == pyspiel.PlayerId.CHANCE
    outcomes = root.chance_outcomes()
    assert [a for a, _ in outcomes] == root.legal_actions() == list(range(5))
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    assert game.max_chance_outcomes() == 5
    for seed, _ in outcomes:
        child = root.child(seed)
        expected = game.sparring_game.new_state(seed)
        assert child.current_player() == expected.current_player()
        assert child.observation_string(0) == json.dumps(expected.observation(0), sort_keys=True)


@pytest.mark.parametrize("name", GAMES)
def test_the_python_shortcuts_answer_as_pyspiels_own_path(name):
    """``legal_actions`` and ``observation_tensor`` called from Python skip pyspiel's trip
    through C++ (``SparringState``): at every node of a playout, for every player, they give
    what the C++ path (``pyspiel.State``'s own methods) gives."""
    game = _load(name)
    state, rng = game.new_initial_state(), random.Random(3)
    tensors = game.get_type().provides_observation_tensor
    for _ in range(40):
        assert state.legal_actions() == pyspiel.State.legal_actions(state)
        for p in range(game.num_players()):
            assert state.legal_actions(p) == pyspiel.State.legal_actions(state, p)
            if tensors:
                assert state.observation_tensor(p) == pytest.approx(
                    pyspiel.State.observation_tensor(state, p), abs=0
                )
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    assert state.is_terminal() or len(state.history()) == 40


@pytest.mark.parametrize("name", GAMES)
def test_the_observation_tensor_is_the_games_encoding(name):
    game = _load(name)
    sparring = game.sparring_game
    if not game.get_type().provides_observation_tensor:
        assert not callable(getattr(sparring, "encode", None))
        return
    shape = tuple(sparring.observation_shape())
    assert tuple(game.observation_tensor_shape()) in (shape, (int(np.prod(shape)),))
    state, rng = game.new_initial_state(), random.Random(1)
    assert not any(state.observation_tensor(0))  # nothing is seen before the seed is drawn
    state.apply_action(2)
    for _ in range(6):
        for p in range(game.num_players()):
            expected = sparring.encode(state.sparring_state.observation(p))
            np.testing.assert_array_equal(
                np.asarray(state.observation_tensor(p), np.float32), np.ravel(expected)
            )
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))


def test_the_game_type_and_info_say_what_the_game_declares():
    nim = _load("nim", num_seeds=7)
    kind = nim.get_type()
    assert kind.short_name == "python_sparring_nim"
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert kind.provides_observation_tensor and kind.provides_information_state_string
    assert not kind.provides_information_state_tensor
    assert (nim.num_distinct_actions(), nim.max_chance_outcomes(), nim.num_players()) == (3, 7, 2)
    assert (nim.min_utility(), nim.max_utility(), nim.utility_sum()) == (-1.0, 1.0, 0.0)
    assert nim.max_game_length() == 16 and nim.max_history_length() == 17
    assert _load("nim", max_game_length=40).max_game_length() == 40  # the parameter overrides

    flagbots = _load("flagbots", num_seeds=1)  # FlagBots declares it: the whole board is seen
    assert flagbots.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert (flagbots.min_utility(), flagbots.max_utility()) == (-1.0, 1.0)
    poker = _load("poker")  # a seat does not see the others' cards
    assert poker.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION

    open_nim = _load("open_nim")
    assert open_nim.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert not open_nim.get_type().provides_observation_tensor
    assert open_nim.max_game_length() == bridge.DEFAULT_MAX_GAME_LENGTH
    assert open_nim.max_utility() == bridge.DEFAULT_UTILITY_BOUND
    state = open_nim.new_initial_state().child(0)  # 10 stones; ids are indexes of [3, 2, 1]
    assert state.legal_actions() == [0, 1, 2]
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["3", "2", "1"]
    state.apply_action(0)
    assert state.sparring_state.stones == 7


def test_the_games_types_follow_their_sums_and_tables():
    eleusis = _load("eleusis")  # one player against nature: no sum
    assert eleusis.num_players() == 1
    assert eleusis.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert eleusis.sparring_game.cap == 40  # the variant parameter
    poker = _load("poker", players=3)  # at another table (at_table)
    assert (
        poker.num_players() == 3 and poker.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    )
    pyspiel.random_sim_test(poker, num_sims=2, serialize=False, verbose=False)
    with pytest.raises(ValueError, match="played by 2 players only"):
        _load("nim", players=3)


def test_the_information_state_is_the_seats_perfect_recall():
    game = _load("nim")
    # seeds 0 and 7 both make 10 stones: the seed drawn is never in an information state
    a, b = game.new_initial_state().child(0), game.new_initial_state().child(7)
    assert a.history() != b.history()
    for action in (2, 0, 1):  # take 3, 1, 2
        assert a.information_state_string(0) == b.information_state_string(0)
        previous = [a.information_state_string(p) for p in range(2)]
        a.apply_action(action)
        b.apply_action(action)
        for p in range(2):  # a record only grows: perfect recall
            assert a.information_state_string(p).startswith(previous[p] + "\n")
    assert a.information_state_string(0).splitlines() == [
        '{"stones": 10, "to_move": 0}',
        "> 3",
        '{"stones": 7, "to_move": 1}',
        '{"stones": 6, "to_move": 0}',
        "> 2",
        '{"stones": 4, "to_move": 1}',
    ]
    # kept up to date as the state goes on (and in clones) = replayed from the history
    clone = a.clone()
    clone.apply_action(0)
    fresh = game.new_initial_state()
    for action in clone.history():
        fresh.apply_action(action)
    assert clone.information_state_string(1) == fresh.information_state_string(1)
    assert a.information_state_string(1) != clone.information_state_string(1)  # a is unchanged
    assert game.new_initial_state().information_state_string(0) == ""


def test_openspiels_mcts_plays_nim_through_the_bridge():
    game = _load("nim")
    bot = mcts.MCTSBot(
        game,
        uct_c=2.0,
        max_simulations=300,
        evaluator=mcts.RandomRolloutEvaluator(n_rollouts=2, random_state=np.random.RandomState(3)),
        random_state=np.random.RandomState(4),
        solve=True,
    )
    rng = random.Random(2)
    for seed in (1, 2, 3):  # 11, 12, 13 stones
        state = game.new_initial_state().child(seed)
        while not state.is_terminal():
            if state.current_player() == 1:
                state.apply_action(rng.choice(state.legal_actions()))
                continue
            stones = state.sparring_state.stones
            take = game.sparring_game.actions()[bot.step(state)]
            if stones % 4:  # a won position: leave a multiple of four
                assert (stones - take) % 4 == 0, (stones, take)
            state.apply_action(game.sparring_game.actions().index(take))
        if (10 + seed) % 4:
            assert state.returns() == [1.0, -1.0]


def test_openspiels_mcts_plays_flagbots_through_the_bridge():
    game = _load("flagbots", num_seeds=1)
    bot = mcts.MCTSBot(
        game,
        uct_c=2.0,
        max_simulations=16,
        evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0)),
        random_state=np.random.RandomState(1),
    )
    state = game.new_initial_state().child(0)
    mirror = game.sparring_game.new_state(0)
    for _ in range(3):
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        mirror.apply_action(game.sparring_game.actions()[action])
        assert state.sparring_state.to_text() == mirror.to_text()
    assert state.sparring_state.ply == 3


def test_a_clone_shares_the_sparring_state_until_one_of_them_moves(monkeypatch):
    """pyspiel copies a state to hand it to Python code (every observation_tensor does): the
    copy shares the Sparring state, and the first of the two to move clones it, so neither
    ever sees the other's moves."""
    from sparring.flagbots.game import Position

    clones = []
    real_clone = Position.clone
    monkeypatch.setattr(Position, "clone", lambda self: clones.append(1) or real_clone(self))
    game = _load("flagbots", num_seeds=1)
    state = game.new_initial_state().child(0)
    for _ in range(5):
        state.observation_tensor(state.current_player())
    assert not clones  # read and dropped: nothing cloned
    twin = state.clone()
    assert twin.sparring_state is state.sparring_state
    first, last = state.legal_actions()[0], state.legal_actions()[-1]
    twin.apply_action(first)  # the twin moves: it takes a clone of its own
    assert len(clones) == 1 and twin.sparring_state is not state.sparring_state
    assert (state.sparring_state.ply, twin.sparring_state.ply) == (0, 1)
    state.apply_action(last)  # the original is alone again: no clone
    assert len(clones) == 1
    assert state.sparring_state.to_text() != twin.sparring_state.to_text()
    assert state.history() == [0, last] and twin.history() == [0, first]


def test_openspiels_cfr_solves_preflop_poker_through_the_bridge():
    """Sparring's poker with one betting round (``variant=streets=1``: preflop, then the
    showdown on the whole board) over 8 deals, under OpenSpiel's CFR: the average policy's
    NashConv (what both best responses gain against it, in chips) falls as CFR iterates, to a
    twentieth of the uniform policy's. The control: uniform play is far from equilibrium."""
    game = pyspiel.load_game("python_sparring_poker", {"variant": "streets=1", "num_seeds": 8})
    assert game.sparring_game.streets == 1 and game.num_players() == 2
    uniform = exploitability.nash_conv(game, policy_lib.UniformRandomPolicy(game))
    assert uniform > 1.0  # chips a best response wins against random play
    solver = cfr.CFRSolver(game)
    conv = []
    for iteration in range(1, 101):
        solver.evaluate_and_update_policy()
        if iteration in (10, 100):
            conv.append(exploitability.nash_conv(game, solver.average_policy()))
    assert conv[1] < conv[0] < uniform
    assert conv[1] < uniform / 20, (uniform, conv)


def test_a_poker_variant_other_than_streets_is_refused_in_one_line():
    with pytest.raises(ValueError, match=r"expected streets=<1..4>"):
        pyspiel.load_game("python_sparring_poker", {"variant": "streets=5"})
    with pytest.raises(ValueError, match=r"expected streets=<1..4>"):
        pyspiel.load_game("python_sparring_poker", {"variant": "board=3"})


def test_a_game_without_actions_is_refused_in_one_line():
    with pytest.raises(TypeError, match=r"unbridged_nim.*has no actions, observation_shape, "):
        pyspiel.load_game(bridge.register("unbridged_nim"))


def test_a_game_past_its_declared_bounds_is_an_error_not_a_wrong_game():
    state = _load("nim", max_game_length=2).new_initial_state().child(6)  # 16 stones
    state.apply_action(0)
    state.apply_action(0)
    with pytest.raises(ValueError, match=r"past max_game_length=2"):
        state.apply_action(0)
    assert len(state.history()) == 3 and state.sparring_state.stones == 14  # unchanged

    class Loud(Nim):
        name = "loud_nim"
        utility_range = (-0.5, 0.5)

    game_api.REGISTRY.register(Loud())
    state = _load("loud_nim").new_initial_state().child(0)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[-1])
    with pytest.raises(ValueError, match=r"outside the game's utility range \[-0.5, 0.5\]"):
        state.returns()
