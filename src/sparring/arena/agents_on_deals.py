"""Poker agents of any kind on a deal set's deals: the league's pairs with an agent entrant.

The league plays two chromosome entrants in the numba engine, every rotation of every held-out
deal, from the deal set's precomputed equities. A pair with an *agent* entrant (any agent spec:
``py:``, ``cmd:``, ``acpc:``) plays the same deals through the game protocol
(``arena.play.play_game`` on hands dealt the deal's cards), and chromosomes play there as
``DealChromosomeAgent``s, which read the same precomputed equities.

A *seating* is a lone player and the table of ``n - 1`` players around it. Per deal it plays the
``n`` seat rotations: the lone player in each seat once, table player ``j`` in seat
``(seat of the lone + j) % n``, the hole pairs as dealt (seat ``s`` holds pair ``s``). These are
the engine's rotations ``poker.table.seating(n, a * n)``, ``a = 0 .. n - 1`` (``n`` of its
``n * n``): fed chromosomes on both sides this plays exactly the engine's hands for them
(tests/arena/test_deal_play.py). The lone player's result per deal is its bb/100 over the
``n`` hands.

A fault (a program that crashes, hangs, answers garbage or an illegal action) costs the faulty
seat the most a fixed-limit hand can cost (``MAX_HAND_LOSS``), shared out to the others: no
agent gains by failing. Faults are counted per side and returned with the results; a side that
faults ``withdraw_after`` hands in a row forfeits the rest of the pair without playing them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sparring.arena.play import forfeit_returns, play_game
from sparring.ga.fitness import bb_per_100
from sparring.poker.cards import CARD_TEXTS
from sparring.poker.game import Holdem, HoldemHand
from sparring.poker.house import ChromosomeAgent
from sparring.poker.rules import MAX_BETS, STREET_NAMES, bet_size

MAX_HAND_LOSS = float(sum(MAX_BETS * bet_size(street) for street in range(4)))
"""Chips: four bets on every street, what a seat can put in one hand at most (48)."""


class DealChromosomeAgent(ChromosomeAgent):
    """A chromosome that reads its equity from the deal set (as the engine does) instead of
    estimating it: ``deal(equity, holes)`` gives it the deal's (N, 4, N-1) equities and hole
    pairs before each deal; it finds its own pair by the cards its observation shows."""

    def __init__(self, genes: np.ndarray, raise_factor: float, call_factor: float) -> None:
        super().__init__(genes, raise_factor, call_factor)
        self._equity: np.ndarray | None = None
        self._pair_of: dict[tuple[str, str], int] = {}

    def deal(self, equity: np.ndarray, holes: np.ndarray) -> None:
        self._equity = equity
        self._pair_of = {(CARD_TEXTS[a], CARD_TEXTS[b]): h for h, (a, b) in enumerate(holes)}

    def equity(self, observation: dict[str, Any]) -> float:
        assert self._equity is not None, "deal() comes before the first decision"
        pair = self._pair_of[tuple(observation["hole"])]
        street = STREET_NAMES.index(observation["street"])
        others = sum(observation["active"]) - 1
        return float(self._equity[pair, street, others - 1])


@dataclass(frozen=True)
class Side:
    """One side of a pair: its name, its lone player and its table (``n - 1`` players), as
    factories of agents (each agent is made once per pair)."""

    name: str
    lone: Callable[[], Any]
    table: Sequence[Callable[[], Any]]


def chromosome_side(
    name: str, lone: np.ndarray, table: np.ndarray, raise_factor: float, call_factor: float
) -> Side:
    """A chromosome entrant as a side: each player a ``DealChromosomeAgent``."""

    def agent(genes: np.ndarray) -> Callable[[], Any]:
        return lambda: DealChromosomeAgent(genes, raise_factor, call_factor)

    return Side(name, agent(lone), [agent(genes) for genes in table])


def agent_side(name: str, make: Callable[[], Any], seats: int) -> Side:
    """An agent entrant as a side: its table is ``seats - 1`` more of the same agent."""
    return Side(name, make, [make] * (seats - 1))


@dataclass
class Faults:
    """Hands a side's agents forfeited, the first reason, and the sides withdrawn: a side
    that faults ``withdraw_after`` hands in a row forfeits the rest of the pair unplayed (a
    bot that cannot start would otherwise cost its start limit on every hand)."""

    withdraw_after: int = 3
    count: dict[str, int] = field(default_factory=dict)
    first: dict[str, str] = field(default_factory=dict)
    in_a_row: dict[str, int] = field(default_factory=dict)
    withdrawn: set[str] = field(default_factory=set)

    def add(self, side: str, reason: str) -> None:
        self.count[side] = self.count.get(side, 0) + 1
        self.first.setdefault(side, reason)
        self.in_a_row[side] = self.in_a_row.get(side, 0) + 1
        if self.in_a_row[side] >= self.withdraw_after and side not in self.withdrawn:
            self.withdrawn.add(side)
            self.first[side] += f"; withdrawn after {self.withdraw_after} in a row"

    def played(self, *sides: str) -> None:
        for side in sides:
            self.in_a_row[side] = 0


class _Dealt(Holdem):
    """``poker`` at ``n`` seats whose next hand has the cards given to ``deal``."""

    def __init__(self, seats: int) -> None:
        super().__init__(seats)
        self._cards: tuple[list[tuple[int, int]], list[int]] | None = None

    def deal(self, holes: np.ndarray, board: np.ndarray) -> None:
        self._cards = ([(int(a), int(b)) for a, b in holes], [int(c) for c in board])

    def new_state(self, seed: int) -> HoldemHand:
        assert self._cards is not None
        return HoldemHand(*self._cards)


def play_seating(
    lone: Any,
    table: Sequence[Any],
    holes: np.ndarray,
    board: np.ndarray,
    seed: int,
    faults: Faults,
    names: tuple[str, str],
    secret: bytes | None = None,
) -> float:
    """The lone player's chips over the deal's ``n`` seat rotations (see the module
    docstring); ``names``: (the lone's side, the table's side), for ``faults``; ``secret``
    keys the agents' start seeds (``play.play_game``)."""
    n = len(table) + 1
    game = _Dealt(n)
    game.deal(holes, board)
    players = [lone, *table]
    chips = 0.0
    for a in range(n):
        gone = [side for side in names if side in faults.withdrawn]
        if gone:  # not played: the lone seat (a), or the table's next seat, forfeits
            seat = a if gone[0] == names[0] else (a + 1) % n
            faults.count[gone[0]] += 1
            chips += forfeit_returns(n, seat, worst=-MAX_HAND_LOSS)[a]
            continue
        seated = [players[(s - a) % n] for s in range(n)]
        record = play_game(game, seated, seed * n + a, secret=secret)
        returns = record.returns
        if record.forfeit_seat is not None:
            side = names[0] if record.forfeit_seat == a else names[1]
            faults.add(side, f"{record.forfeit_kind}: {record.forfeit_detail}")
            returns = forfeit_returns(n, record.forfeit_seat, worst=-MAX_HAND_LOSS)
        else:
            faults.played(*names)
        chips += returns[a]
    return chips


def play_pair(
    a: Side,
    b: Side,
    deal_id: np.ndarray,
    holes: np.ndarray,
    board: np.ndarray,
    equity: np.ndarray,
    withdraw_after: int = 3,
    secret: bytes | None = None,
) -> tuple[np.ndarray, Faults]:
    """(D, 2) bb/100 per deal, as the engine's ``ga.round_robin.play_pair``: column 0 A alone
    against B's table, column 1 B alone against A's table; and the faults of each side (one
    withdrawn after ``withdraw_after`` in a row). Every agent is made here and closed at the
    end (a program's process ends with the pair)."""
    n = holes.shape[1]
    a_lone, a_table = a.lone(), [make() for make in a.table]
    b_lone, b_table = b.lone(), [make() for make in b.table]
    everyone = [a_lone, *a_table, b_lone, *b_table]
    faults = Faults(withdraw_after)
    out = np.empty((len(deal_id), 2))
    try:
        for d in range(len(deal_id)):
            for agent in everyone:
                if isinstance(agent, DealChromosomeAgent):
                    agent.deal(equity[d], holes[d])
            seed, cards = int(deal_id[d]), (holes[d], board[d])
            out[d, 0] = play_seating(a_lone, b_table, *cards, seed, faults, (a.name, b.name),
                                     secret)  # fmt: skip
            out[d, 1] = play_seating(b_lone, a_table, *cards, seed, faults, (b.name, a.name),
                                     secret)  # fmt: skip
    finally:
        for agent in everyone:
            close = getattr(agent, "close", None)
            if callable(close):
                close()
    return np.asarray(bb_per_100(out, n)), faults


__all__ = [
    "MAX_HAND_LOSS",
    "DealChromosomeAgent",
    "Faults",
    "Side",
    "agent_side",
    "chromosome_side",
    "play_pair",
    "play_seating",
]
