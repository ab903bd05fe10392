"""Sparring's own poker player in the arena: a chromosome (the GA's (540, 2) table of
thresholds) playing through the game protocol, from what its seat sees (``poker@<baseline>``
and ``champion@...`` entrants, ``poker.traits``).

The engine (``poker.engine``, and its readable reference ``poker.table.play_hand_reference``)
plays a chromosome from a deal set's precomputed equities. Here the same rules decide from what
a seat's observation shows: its hole cards and the board dealt so far give its equity against
the players still in (preflop: the shipped preflop table, as the deal sets use; later streets:
a seeded Monte Carlo estimate, ``equity_trials`` draws, its seed a function of the cards alone,
so a situation always gets the same estimate); the street's betting so far gives the gene
(street, opponents, players still to act, bets to call, pot). Fed the same equities, this agent
and the reference play every hand alike (tests/arena/test_chromosome.py).

The engine's conversions hold too: a raise when the street has its four bets is a call, and a
fold when nothing is owed is a check.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from sparring.poker.cards import parse_cards
from sparring.poker.catalog import N_GENES
from sparring.poker.equity import equity_by_opponents
from sparring.poker.preflop import class_index, load_table
from sparring.poker.rules import (
    ACTION_NAMES,
    CALL,
    DEFAULT_CALL_FACTOR,
    DEFAULT_RAISE_FACTOR,
    RAISE,
    STREET_NAMES,
    bet_size,
    decision_value,
    gene_action,
    gene_index,
    preflop_action,
)

EQUITY_TRIALS = 2000
"""Monte Carlo draws per postflop equity (the deal sets' default ``equity_trials``)."""


def situation_equity(
    hole: Sequence[str], board: Sequence[str], opponents: int, trials: int = EQUITY_TRIALS
) -> float:
    """The equity of ``hole`` against ``opponents`` random hands given ``board`` (cards as
    text): the preflop table's with no board, else a Monte Carlo estimate seeded by the cards."""
    cards = parse_cards("".join(hole))
    if not board:
        return float(load_table()[int(class_index(cards)[0]), opponents])
    seed = zlib.crc32("".join([*hole, "/", *board]).encode())
    shares = equity_by_opponents(cards, "".join(board), opponents, trials, seed)
    return float(shares[opponents - 1])


def players_to_act(observation: dict[str, Any]) -> int:
    """How many players other than the seat still act on this street before it closes: those
    in the hand who have not acted since the street's last raise (the engine's ``to_act``)."""
    seat, active = observation["seat"], observation["active"]
    acted: set[int] = set()
    for who, word in observation["history"][-1] if observation["history"] else ():
        if word == ACTION_NAMES[RAISE]:
            acted = {who}
        else:
            acted.add(who)
    return sum(1 for s, alive in enumerate(active) if alive and s != seat and s not in acted)


class ChromosomeAgent:
    """A chromosome's play: ``genes`` (540, 2) int8 postflop thresholds and the preflop
    factors (the champion's ``champion.json`` names them; the defaults are the engine's)."""

    def __init__(
        self,
        genes: np.ndarray,
        raise_factor: float = DEFAULT_RAISE_FACTOR,
        call_factor: float = DEFAULT_CALL_FACTOR,
        equity_trials: int = EQUITY_TRIALS,
    ) -> None:
        genes = np.asarray(genes)
        if genes.shape != (N_GENES, 2):
            raise ValueError(f"a chromosome is ({N_GENES}, 2) thresholds, got {genes.shape}")
        self.genes = genes.astype(np.int64)
        self.raise_factor, self.call_factor = float(raise_factor), float(call_factor)
        self.equity_trials = int(equity_trials)

    def equity(self, observation: dict[str, Any]) -> float:
        others = sum(observation["active"]) - 1
        return situation_equity(
            observation["hole"], observation["board"], others, self.equity_trials
        )

    def act(self, observation: dict[str, Any], legal: Sequence[Any]) -> str:
        street = STREET_NAMES.index(observation["street"])
        others = sum(observation["active"]) - 1
        e = self.equity(observation)
        if street == 0:
            action = preflop_action(e, others, self.raise_factor, self.call_factor)
        else:
            g = gene_index(
                street,
                others,
                players_to_act(observation),
                observation["to_call"] // bet_size(street),
                observation["pot"],
            )
            action = gene_action(decision_value(e), self.genes[g, 0], self.genes[g, 1])
        word = ACTION_NAMES[action]
        if word not in legal:  # four bets made (raise) or nothing owed (fold): a call
            word = ACTION_NAMES[CALL]
        return word


def baseline_agent(name: str) -> ChromosomeAgent:
    """``poker@<name>``: the baseline chromosome ``name`` (``poker.bots.BASELINES``)."""
    from sparring.poker.bots import baseline

    return ChromosomeAgent(baseline(name))


def champion_agent(resolved: dict[str, Any]) -> ChromosomeAgent:
    """A registered champion's chromosome (``genes``) with its preflop factors, where it has
    them (``resolved``: what the model registry holds of it)."""
    factors = {k: resolved[k] for k in ("raise_factor", "call_factor") if k in resolved}
    return ChromosomeAgent(resolved["genes"], **factors)
