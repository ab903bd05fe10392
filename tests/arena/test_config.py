"""The arena's config: who plays whom in each kind of contest, and what is refused."""

from __future__ import annotations

import pytest

from sparring.runtime.errors import ConfigError


def test_a_round_robin_is_its_field_alone_whatever_agent_says(pipeline_config):
    job = pipeline_config("arena", "kind=round_robin", "field=[random,first]")  # agent=random
    assert job.entrants == ["random", "first"] and job.pairs() == [("random", "first")]


def test_a_gauntlet_puts_the_agent_against_each_of_the_field(pipeline_config):
    job = pipeline_config("arena", "agent=first", "field=[random,'flagbots@depth=1']")
    assert job.pairs() == [("first", "random"), ("first", "flagbots@depth=1")]
    sprt = pipeline_config("arena", "kind=sprt", "agent=first", "field=[random]")
    assert sprt.pairs() == [("first", "random")]


@pytest.mark.parametrize(
    "overrides, says",
    [
        (["agent=random", "field=[random]"], "distinct agents (one of them is named twice)"),
        (["game=mus", "agent='flagbots@depth=2'"], "an agent of mus (flagbots@depth=2 plays"),
        (["kind=round_robin", "field=[first,nope]"], "field[1]=nope is not allowed"),
        (["field=[]"], "a non-empty list of agent specs"),
        (["game=poker", "agent=champion@champion", 'model_name="a b"'], "model_name='a b' is not"),
        (["agent=poker@maniac"], "an agent of flagbots (poker@maniac plays poker)"),
        (["game=poker", "agent='mus@aggression=2'"], "expected a number in [0, 1]"),
        (["seats=3"], "seats=3 is not allowed: expected null: only poker has a table size"),
        (["game=poker", "seats=11"], "seats=11 is not allowed: expected an integer in 2..10"),
        (["game=flagbots", "agent='acpc:sh -c true'"], "an agent of flagbots (acpc:sh -c true"),
        (["game=openspiel:no_such_game"], "or openspiel:<game>; OpenSpiel has no game"),
        (["game='openspiel:leduc_poker(foo=1)'"], "OpenSpiel refuses 'leduc_poker(foo=1)'"),
        (["game=openspiel:kuhn_poker", "agent=openspiel:mcts"], "a game of perfect information"),
        (["game=poker", "field=[openspiel:uniform_random]"], "field[0]=openspiel:uniform_random"),
        (["game=openspiel:kuhn_poker", "agent='openspiel:mcts:simulations=0'"], "1..1000000"),
    ],
)
def test_bad_contests_are_refused_in_one_line(pipeline_config, overrides, says):
    with pytest.raises(ConfigError) as error:
        pipeline_config("arena", *overrides)
    assert says in str(error.value) and "\n" not in str(error.value)


def test_an_openspiel_game_takes_openspiel_bots_and_the_games_own_defaults(pipeline_config):
    job = pipeline_config("arena", "game=openspiel:tic_tac_toe",
                          "agent='openspiel:mcts:simulations=20,seed=3'",
                          "field=[random,openspiel:uniform_random]")  # fmt: skip
    assert job.plies == 2 and job.variant == ""  # a deterministic game: 2 random plies
    kuhn = pipeline_config("arena", "game=openspiel:kuhn_poker", "agent=openspiel:uniform_random")
    assert kuhn.plies == 0
