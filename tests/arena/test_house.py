"""Sparring's Mus players and Eleusis scientists as arena agents: through the protocol they play
exactly as the engines play them, and their specs refuse what they cannot be."""

from __future__ import annotations

import re

import pytest

from sparring import game_api
from sparring.arena.agents import make, parse
from sparring.arena.play import play_game, seat_seed
from sparring.eleusis.game import ARENA_CAP, CARDS, Eleusis
from sparring.eleusis.roster import LEARNERS
from sparring.eleusis.scientists import Scientist
from sparring.mus.log import play_match
from sparring.mus.players import SyntheticPlayer
from sparring.runtime.errors import ConfigError
from sparring.runtime.programs.program import Limits
from sparring.seeding import player_seed

SECRET = b"s" * 32  # a contest's (runtime.storage.keys)


def told(game, seed: int, seat: int) -> int:
    """The seed a seat's start message carries (never the game's own ``seed``)."""
    return seat_seed(SECRET, game.name, seed, seat)


class Counting:
    """An engine player whose decisions are counted."""

    def __init__(self, player) -> None:
        self.player, self.decisions = player, 0

    def act(self, observation, legal):
        self.decisions += 1
        return self.player.act(observation, legal)

    def on_game_start(self, models=None) -> None:
        self.player.on_game_start(models)

    def on_hand_end(self, revealed, public=()) -> None:
        self.player.on_hand_end(revealed, public)


@pytest.mark.parametrize(
    "spec",
    ["mus@default", "mus@aggression=0.7,bluff_frequency=0.6", "mus@ordago_rate=0.3,bet_size=3"],
)
def test_a_synthetic_mus_player_plays_through_the_protocol_as_the_engine_plays_it(spec):
    mus = game_api.get("mus")
    rates = {}
    if spec != "mus@default":
        rates = {k: float(v) for k, v in (i.split("=") for i in spec[4:].split(","))}
        rates = {k: int(v) if k == "bet_size" else v for k, v in rates.items()}
    for seed in range(3):
        agents = [make(parse(spec), Limits()) for _ in range(4)]
        record = play_game(mus, agents, seed, secret=SECRET)
        players = [
            Counting(
                SyntheticPlayer.with_rates(
                    seed=player_seed({"seed": told(mus, seed, s), "seat": s}, "mus-player"),
                    **rates,
                )
            )
            for s in range(4)
        ]
        state, _ = play_match(mus.game, players, seed)
        assert record.forfeit_seat is None and not record.capped
        assert record.returns == [float(r) for r in state.returns()]
        assert record.decisions == sum(p.decisions for p in players) >= 4


@pytest.mark.parametrize("name", ["frequency", "kl_ucb", "dirichlet_gibbs"])
def test_a_scientist_plays_through_the_protocol_as_it_does_step_by_step(name):
    eleusis = game_api.get("eleusis")
    for seed in range(3):
        agent = make(parse(f"eleusis@{name}"), Limits())
        record = play_game(eleusis, [agent], seed, secret=SECRET)
        # the same scientist on the same game, fed each feedback directly
        play = eleusis.new_state(seed)
        own = told(eleusis, seed, 0)
        scientist = Scientist(name, seed=player_seed({"seed": own, "seat": 0}, "scientist"))
        guesses = []
        while not play.is_terminal():
            guesses.append(CARDS[scientist.guess()])
            play.apply_action(guesses[-1])
            scientist.learn(play.last.code)
        assert record.actions == guesses
        assert record.returns == [float(r) for r in play.returns()]


def test_a_scientist_learns_only_from_its_own_guesses():
    """After an opening (guesses the arena played for it) the first feedback is not its own."""
    eleusis = game_api.get("eleusis")
    record = play_game(
        eleusis, [make(parse("eleusis@kl_ucb"), Limits())], 5, opening=["C 1", "D 2"]
    )
    assert record.forfeit_seat is None and record.decisions > 0


def test_scientists_in_the_arena_learn():
    """On a deck with a few likely cards (spike) a learner finds them: every game finished in
    a few hundred guesses, where a random guesser runs out of its 2,000 every time."""
    eleusis = Eleusis(deck="spike:alpha=0.5")
    seeds = range(12)

    def guessed(spec: str, seed: int) -> float:
        return -play_game(eleusis, [make(parse(spec), Limits())], seed, secret=SECRET).returns[0]

    guesses = {
        spec: [guessed(spec, s) for s in seeds]
        for spec in ("random", "eleusis@frequency", "eleusis@kl_ucb")
    }
    assert guesses["random"] == [ARENA_CAP] * len(seeds)
    for spec in ("eleusis@frequency", "eleusis@kl_ucb"):
        assert max(guesses[spec]) < ARENA_CAP / 4, guesses


def test_house_specs_name_their_game_and_refuse_what_they_cannot_be():
    assert parse("mus@default").games == ("mus",)
    assert parse("eleusis@em_greedy").games == ("eleusis",)
    assert parse("eleusis@dirichlet_gibbs:alpha=0.3").games == ("eleusis",)
    learners = "|".join(LEARNERS)
    for bad, says in (
        ("mus@", "mus@default or mus@<rate>=<value>"),
        ("mus@aggresion=0.5", "mus@default or mus@<rate>=<value>,... with rates from"),
        ("mus@aggression=lots", "a number for aggression (got 'lots')"),
        ("mus@aggression=1.5", "aggression=1.5 is not allowed: expected a number in [0, 1]"),
        ("mus@bet_size=0", "bet_size=0 is not allowed"),
        ("mus@bet_size=1", "bet_size in 2..40 (the envidos Mus offers)"),
        ("mus@bet_size=41", "bet_size in 2..40 (the envidos Mus offers)"),
        ("eleusis@oracle", f"eleusis@<{learners}> (oracle is told the deck)"),
        ("eleusis@optimal", "(optimal is told the deck)"),
        ("eleusis@newton", "unknown scientist 'newton'"),
        ("eleusis@kl_ucb:beta=2", "kl_ucb takes"),
    ):
        with pytest.raises(ConfigError, match=re.escape(says)):
            parse(bad)
