"""A chromosome in the arena plays as the engine does: fed the equities the agent computes, the
readable reference engine (``poker.table.play_hand_reference``, itself checked against the
numba kernel) makes the same decisions and the same nets, hand by hand."""

from __future__ import annotations

import re

import numpy as np
import pytest

from sparring.arena.agents import make, parse
from sparring.arena.play import play_game
from sparring.poker.bots import BASELINES, baseline, random_player
from sparring.poker.cards import format_cards
from sparring.poker.evaluator import evaluate7
from sparring.poker.game import BOARD_SHOWN, Holdem
from sparring.poker.house import ChromosomeAgent, players_to_act, situation_equity
from sparring.poker.table import play_hand_reference
from sparring.poker.traits import BASELINE_AGENTS
from sparring.runtime.errors import ConfigError
from sparring.runtime.programs.program import Limits

TRIALS = 300  # Monte Carlo draws per postflop equity: the comparison is exact at any count


def texts(cards) -> list[str]:
    return [format_cards([c]) for c in cards]


def reference(
    seats: int, seed: int, chromosomes: np.ndarray
) -> tuple[list[str], list[float], bool]:
    """The reference engine's actions, nets and whether the river was dealt, for the hand
    ``Holdem(seats).new_state(seed)`` deals, from the equities the agent computes for each
    seat, street and opponent count."""
    hand = Holdem(seats).new_state(seed)
    equity = np.zeros((seats, 4, seats - 1))
    for h, hole in enumerate(hand.holes):
        for street in range(4):
            board = texts(hand.board[: BOARD_SHOWN[street]])
            for k in range(1, seats):
                equity[h, street, k - 1] = situation_equity(texts(hole), board, k, TRIALS)
    seven = np.array([[*hole, *hand.board] for hole in hand.holes], dtype=np.uint8)
    trace = play_hand_reference(
        equity, evaluate7(seven), list(range(seats)), list(range(seats)), chromosomes
    )
    actions = [m.group(1) for line in trace.lines if (m := re.search(r"; (\w+)\)$", line))]
    return actions, trace.net_by_seat, any(line.startswith("-- river") for line in trace.lines)


@pytest.mark.parametrize("seats", [2, 3, 6])
def test_chromosomes_play_every_hand_as_the_reference_engine(seats):
    rng = np.random.default_rng(seats)
    kinds = [baseline(k, rng) for k in ("tight_aggressive", "calling_station", "maniac")]
    chromosomes = np.stack(
        [kinds[s] if s < len(kinds) and s % 2 else random_player(rng) for s in range(seats)]
    )
    rivers = 0
    for seed in range(40):
        agents = [ChromosomeAgent(c, equity_trials=TRIALS) for c in chromosomes]
        record = play_game(Holdem(seats), agents, seed)
        actions, nets, river = reference(seats, seed, chromosomes)
        assert record.forfeit_seat is None
        assert record.actions == actions, seed
        assert record.returns == nets, seed
        rivers += river
    assert rivers >= 5  # the genes of every street were played, not only the preflop rule


def test_who_is_still_to_act_follows_the_last_raise():
    observation = {
        "seat": 0,
        "active": [True, True, False, True],
        # seat 1 raised, seat 3 called, seat 2 had folded before: only seat 0 itself is left
        "history": [[[0, "call"], [1, "raise"], [2, "fold"], [3, "call"]]],
    }
    assert players_to_act(observation) == 0
    observation["history"] = [[[1, "call"]]]  # seat 3 has not acted on this street yet
    assert players_to_act(observation) == 1  # seat 1 has, seat 3 has not
    observation["history"] = [[]]
    assert players_to_act(observation) == 2


def test_the_poker_specs_name_the_baselines_and_refuse_the_rest():
    assert tuple(b for b in BASELINES if b != "mixed") == BASELINE_AGENTS
    for name in BASELINE_AGENTS:
        spec = parse(f"poker@{name}")
        assert spec.games == ("poker",)
        agent = make(spec, Limits())
        assert np.array_equal(agent.genes, baseline(name))
    champion = parse("champion@champion")
    assert (champion.kind, champion.alias, champion.version, champion.games) == (
        "champion",
        "champion",
        "",
        ("poker",),
    )
    assert parse("champion@7").version == "7"
    genes = baseline("maniac")
    agent = make(champion, Limits(), resolved={"genes": genes.tolist(), "raise_factor": 2.0})
    assert np.array_equal(agent.genes, genes) and agent.raise_factor == 2.0
    with pytest.raises(ValueError, match="not read from the registry"):
        make(champion, Limits())
    for bad, says in (
        ("poker@mixed", "poker@<calling_station|maniac|random|tight_aggressive>"),
        ("poker@", "poker@<calling_station"),
        ("champion@", "champion@<alias> or champion@<version>"),
        ("champion@-x", "champion@<alias> or champion@<version>"),
    ):
        with pytest.raises(ConfigError, match=re.escape(says)):
            parse(bad)
