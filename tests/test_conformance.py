"""Every registered game passes the same game-API conformance check over random games, the
registry is cheap and strict, and the check itself catches each kind of broken game."""

from __future__ import annotations

import random
import subprocess
import sys
from typing import Any

import pytest

from sparring import game_api
from sparring.conformance import ConformanceError, check_random_games
from sparring.eleusis.game import CARDS, Eleusis, EleusisPlay
from sparring.flagbots.game import FlagBotsGame
from sparring.game_api import TERMINAL, Game, GameState, IllegalActionError, Registry
from sparring.mus.engine import MusConfig
from sparring.mus.game import Mus, MusMatch
from sparring.poker.cards import format_cards
from sparring.poker.game import Holdem, HoldemHand

GAMES_PER_CHECK = {"poker": 300, "mus": 3, "flagbots": 40, "eleusis": 2}
"""Random games per registered game: a few seconds each (Eleusis' random player always plays
to the 2,000-guess cap; a Mus match to 40 is ~100 decisions with a long history)."""


def test_the_four_games_are_registered_under_their_names():
    assert set(game_api.registered()) >= {"poker", "mus", "flagbots", "eleusis"}
    for name in game_api.registered():
        game = game_api.get(name)
        assert isinstance(game, Game) and game.name == name
        assert isinstance(game.new_state(0), GameState)


@pytest.mark.parametrize("name", game_api.registered())
def test_random_games_keep_the_game_api(name):
    games = GAMES_PER_CHECK.get(name, 5)
    report = check_random_games(game_api.get(name), games, seed=7)
    assert report.games == games and report.steps >= games and report.refused > games


VARIANTS = [
    (FlagBotsGame("5/1NNN1/5/1SSS1/5 s 20"), 300),
    (FlagBotsGame("7/1NNNNN1/7/##2###/7/1SSSSS1/7 s 30"), 100),
    (Mus(MusConfig(target=10, response_model="pair_joint", cap_bets=True)), 30),
    (Holdem(6), 40),
    (Holdem(10), 10),
    (Eleusis("point_mass", harma=10, cap=300), 10),
]


@pytest.mark.parametrize(("game", "games"), VARIANTS, ids=lambda x: getattr(x, "name", str(x)))
def test_variants_keep_the_game_api(game, games):
    assert check_random_games(game, games, seed=3).games == games


@pytest.mark.slow
@pytest.mark.parametrize("name", game_api.registered())
def test_many_random_games(name):
    games = 20 * GAMES_PER_CHECK.get(name, 5)
    assert check_random_games(game_api.get(name), games, seed=11).games == games


def test_importing_game_api_and_listing_the_games_imports_no_game():
    code = (
        "import sys; from sparring import game_api; names = game_api.registered(); "
        "loaded = [m for m in sys.modules if m.split('.')[0] == 'numba' or m.startswith("
        "('sparring.poker', 'sparring.mus', 'sparring.flagbots', 'sparring.eleusis'))]; "
        "print(len(names), loaded)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "4 []"


# ---------------------------------------------------------------------------- broken games


class _Coin:
    """Two players each hold a hidden card and say 0 or 1 three times; faults switch on."""

    def __init__(self, fault: str, seed: int) -> None:
        self.fault, self.moves = fault, []
        self.cards = [seed % 7, seed % 7 + 10]

    def current_player(self) -> int:
        if self.fault == "wrong_player" and not self.is_terminal():
            return 2
        return TERMINAL if self.is_terminal() else len(self.moves) % 2

    def legal_actions(self) -> list[Any]:
        if self.fault == "moves_after_end" and self.is_terminal():
            return [0]
        if self.is_terminal():
            return []
        return [0, (1,)] if self.fault == "tuple_action" else [0, 1]

    def is_terminal(self) -> bool:
        return len(self.moves) >= (10**9 if self.fault == "endless" else 3)

    def apply_action(self, action: Any) -> None:
        if self.fault == "accepts_true" and action is True:
            self.moves.append(1)
            return
        if self.fault == "type_error" and not isinstance(action, int):
            raise TypeError("not an int")
        if type(action) is not int or action not in (0, 1) or self.is_terminal():
            if self.fault == "illegal_changes_state":
                self.moves.append(0)
            raise IllegalActionError(repr(action))
        self.moves.append(action)

    def returns(self) -> list[float]:
        return [1.0, 1.0] if self.fault == "not_zero_sum" else [1.0, -1.0]

    def observation(self, player: int) -> dict[str, Any]:
        obs: dict[str, Any] = {"moves": list(self.moves), "card": self.cards[player]}
        if self.fault == "leaks":
            obs["other"] = self.cards[1 - player]
        if self.fault == "tuple_observation":
            obs["moves"] = tuple(self.moves)
        return obs

    def clone(self) -> _Coin:
        other = _Coin(self.fault, 0)
        other.cards = list(self.cards)
        other.moves = self.moves if self.fault == "shared_clone" else list(self.moves)
        return other


class _CoinGame:
    name = "coin"
    num_players = 2
    constant_sum = 0.0

    def __init__(self, fault: str = "none") -> None:
        self.fault = fault

    def new_state(self, seed: int) -> _Coin:
        return _Coin(self.fault, seed)

    def snapshot(self, state: _Coin) -> tuple:
        return tuple(state.moves), tuple(state.cards)

    def illegal_actions(self, state: _Coin, rng: random.Random) -> list[object]:
        return [5, "heads"]

    def leaks(self, state: _Coin, player: int, observation: dict[str, Any]) -> list[str]:
        other = state.cards[1 - player]
        return [f"the other card {other}"] if other in observation.values() else []


COIN: Game[int] = _CoinGame()


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("moves_after_end", "terminal=True but 1 legal actions"),
        ("wrong_player", "current_player\\(\\)=2 is no player"),
        ("tuple_action", "legal action \\(1,\\) is no int or short string"),
        ("illegal_changes_state", "changed the state"),
        ("accepts_true", "illegal action True was accepted"),
        ("type_error", "raised TypeError"),
        ("not_zero_sum", "sum to 2, not 0"),
        ("leaks", "hidden information: \\['the other card"),
        ("tuple_observation", "\\['moves'\\] is a tuple"),
        ("shared_clone", "on a clone changed the original"),
        ("endless", "not over after 50 steps"),
    ],
)
def test_the_check_catches_each_kind_of_fault(fault, message):
    with pytest.raises(ConformanceError, match=message):
        check_random_games(_CoinGame(fault), 3, max_steps=50)


def test_the_faultless_coin_passes():
    assert check_random_games(COIN, 5).games == 5


def _leaky_poker(self, player):
    obs = _poker_observation(self, player)
    obs["everyone"] = [format_cards(hole) for hole in self.holes]
    return obs


def _leaky_mus(self, player):
    obs = _mus_observation(self, player)
    obs["hand"] = list(self.state.hands[(player + 1) % 4])
    return obs


def _leaky_mus_history(self, player):
    obs = _mus_observation(self, player)
    obs["history"] = [[e.kind, e.seat, list(e.detail)] for e in self.state.events[1:5]]
    return obs


def _leaky_eleusis(self, player):
    obs = _eleusis_observation(self, player)
    if self.game.drawn is not None:
        obs["referee"] = CARDS[self.game.drawn]
    return obs


_poker_observation = HoldemHand.observation
_mus_observation = MusMatch.observation
_eleusis_observation = EleusisPlay.observation


@pytest.mark.parametrize(
    ("cls", "leaky", "name", "message"),
    [
        (HoldemHand, _leaky_poker, "poker", "seat 0 sees"),
        (MusMatch, _leaky_mus, "mus", "a hand that is not its own"),
        (MusMatch, _leaky_mus_history, "mus", "history is not the events"),
        (EleusisPlay, _leaky_eleusis, "eleusis", "shows the drawn card"),
    ],
    ids=["poker-holes", "mus-hand", "mus-history", "eleusis-drawn"],
)
def test_each_game_sees_its_own_hidden_information_leak(monkeypatch, cls, leaky, name, message):
    monkeypatch.setattr(cls, "observation", leaky)
    with pytest.raises(ConformanceError, match=message):
        check_random_games(game_api.get(name), 2)


def test_a_real_game_that_changes_when_refusing_is_caught(monkeypatch):
    apply = HoldemHand.apply_action

    def sloppy(self, action):
        self.contrib[0] += 1 if action not in self.legal_actions() else 0
        apply(self, action)

    monkeypatch.setattr(HoldemHand, "apply_action", sloppy)
    with pytest.raises(ConformanceError, match="changed the state"):
        check_random_games(game_api.get("poker"), 2)


# ---------------------------------------------------------------------------- the registry


def test_a_registry_registers_once_and_resolves_references_lazily():
    registry = Registry()
    registry.register(COIN)
    registry.register(COIN)  # the same game again is no conflict
    registry.register("tests.test_conformance:COIN", name="lazy_coin")
    assert registry.registered() == ("coin", "lazy_coin")
    with pytest.raises(ValueError, match="already registered"):
        registry.register(_CoinGame())
    with pytest.raises(KeyError, match="no game 'nim'; registered: coin, lazy_coin"):
        registry.get("nim")
    with pytest.raises(TypeError, match="not a sparring.game_api.Game named 'lazy_coin'"):
        registry.get("lazy_coin")  # the reference's game is named coin
    with pytest.raises(TypeError, match="is not a sparring.game_api.Game"):
        registry.register(object())
    assert registry.get("coin") is COIN


def test_the_builtin_table_is_read_on_first_use():
    registry = Registry(builtin="sparring.games:GAMES")
    registry.register(COIN)
    assert registry.registered()[-1] == "coin" and "poker" in registry.registered()
    assert registry.get("flagbots").num_players == 2


def coins(rest: str) -> _CoinGame:
    """A toy family's maker: ``coins:<fault>`` is the coin game with that fault (``none``)."""
    if rest not in ("none", "wrong_player"):
        raise ValueError(f"no coin game {rest!r}")
    game = _CoinGame(rest)
    game.name = f"coins:{rest}"  # (an instance's name: the family's game by its whole name)
    return game


def misnamed(rest: str) -> Game[int]:
    return COIN  # named coin, not wrongly:<rest>


FAMILIES = {"coins": "tests.test_conformance:coins", "wrongly": "tests.test_conformance:misnamed"}


def test_a_family_makes_its_games_by_name_and_lists_none():
    registry = Registry(families="tests.test_conformance:FAMILIES")
    registry.register(COIN)
    assert registry.families() == ("coins", "wrongly") and registry.registered() == ("coin",)
    game = registry.get("coins:none")
    assert game.name == "coins:none" and registry.get("coins:none") is game  # made once
    assert check_random_games(game, 3).games == 3
    assert registry.family("coins:none") == "coins" and registry.family("coin") is None
    assert registry.family("coins:") is None and registry.family("nim:x") is None
    assert registry.refusal("coins:none") is None and registry.refusal("coin") is None
    assert registry.refusal("coins:nope") == (
        "a registered game (coin) or coins:<game> or wrongly:<game>; no coin game 'nope'"
    )
    assert registry.refusal("nim") == "a registered game (coin) or coins:<game> or wrongly:<game>"
    with pytest.raises(KeyError, match="no game 'nim'; registered: coin or coins:<game>"):
        registry.get("nim")
    with pytest.raises(ValueError, match="no coin game 'nope'"):
        registry.get("coins:nope")
    with pytest.raises(TypeError, match="made no sparring.game_api.Game named 'wrongly:x'"):
        registry.get("wrongly:x")


def test_the_openspiel_family_is_declared_without_importing_it():
    code = (
        "import sys; from sparring import game_api; "
        "print(game_api.REGISTRY.families(), game_api.refusal('mus'), game_api.refusal('x:y'), "
        "[m for m in sys.modules if m.startswith(('pyspiel', 'sparring.interop'))])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == (
        "('openspiel',) None a registered game (poker, mus, flagbots, eleusis) or "
        "openspiel:<game> []"
    )


# ---------------------------------------------------------------------------- traits


def test_traits_are_read_from_the_light_declarations_without_importing_a_game():
    """What the config checks ask (table sizes, a game's own agent specs) is answered by each
    built-in's light declaration: no engine, no numba."""
    code = (
        "import sys; from sparring import game_api; "
        "sizes = [game_api.trait(g, 'table_sizes') for g in game_api.registered()[:4]]; "
        "forms = [game_api.trait(g, 'house_agents') for g in game_api.registered()[:4]]; "
        "game_api.trait('poker', 'house_agent')('poker@maniac'); "
        "loaded = [m for m in sys.modules if m.split('.')[0] == 'numba' or m.endswith("
        "('poker.game', 'mus.game', 'flagbots.game', 'eleusis.game', '.house'))]; "
        "print(sizes, all(forms), loaded)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[range(2, 11), None, None, None] True []"


@pytest.mark.parametrize("name", ["poker", "mus", "flagbots", "eleusis"])
def test_a_builtin_game_inherits_its_light_declaration(name):
    declared = game_api.REGISTRY.traits(name)
    game = game_api.get(name)
    assert isinstance(declared, game_api.Traits) and isinstance(game, type(declared))
    for trait in vars(game_api.Traits):
        if not trait.startswith("_") and not callable(getattr(game_api.Traits, trait)):
            assert game_api.trait(name, trait) == game_api.trait(game, trait), trait


def test_a_game_that_declares_nothing_gets_every_default():
    assert game_api.trait(COIN, "teams") is None and game_api.trait(COIN, "opening_plies") == 0
    assert game_api.trait(COIN, "table_sizes") is None and game_api.trait(COIN, "agent_kinds") == ()
    assert game_api.trait(COIN, "house_agent")("coin@anything") is None
    assert game_api.trait(Eleusis(), "win_rate_unit") is None
    assert game_api.trait(Holdem(3), "win_rate_unit") == ("bb", 2)
