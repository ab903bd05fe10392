"""The table's rules against an independent referee: pokerkit's fixed-limit hold'em.

Real deals (cards) are played by the readable reference (``poker.table``) with random
chromosomes; every hand's actions are replayed at a pokerkit table, which checks whose turn it
is, that every action is legal (the raise cap: four bets a street, the big blind the first
preflop), deals the board and settles the pot by its own hand evaluation. The chips each seat
wins or loses must agree: exactly, or where a pot does not divide among its sharers, within a
chip a sharer (pokerkit hands the odd chips out whole; Sparring splits them). The numba engine
is checked against the same reference hand by hand (test_engine.py), and here once more, a
whole deal's rotations against pokerkit's sums.
"""

from __future__ import annotations

import numpy as np
import pytest

pokerkit = pytest.importorskip("pokerkit")

from sparring.poker.cards import CARD_TEXTS  # noqa: E402
from sparring.poker.catalog import N_GENES  # noqa: E402
from sparring.poker.engine import play_deals  # noqa: E402
from sparring.poker.evaluator import evaluate7  # noqa: E402
from sparring.poker.rules import BIG_BET, CALL, FOLD, MAX_BETS, RAISE, SMALL_BET  # noqa: E402
from sparring.poker.table import play_hand_reference, seating  # noqa: E402

STACK = 1_000  # deep enough that nobody is all in (a hand costs at most 4 bets a street)
AUTOMATIONS = (
    pokerkit.Automation.ANTE_POSTING,
    pokerkit.Automation.BET_COLLECTION,
    pokerkit.Automation.BLIND_OR_STRADDLE_POSTING,
    pokerkit.Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    pokerkit.Automation.HAND_KILLING,
    pokerkit.Automation.CHIPS_PUSHING,
    pokerkit.Automation.CHIPS_PULLING,
)
BOARD_OF_STREET = {1: slice(0, 3), 2: slice(3, 4), 3: slice(4, 5)}


def referee(n: int, preflop_raises: int = MAX_BETS - 1) -> pokerkit.State:
    """A pokerkit fixed-limit hold'em table of ``n`` seats, blinds 1/2, bets 2/2/4/4. pokerkit
    counts raises, not the blind: Sparring's four bets a street are three raises preflop."""

    def street(burn: bool, holes: tuple, board: int, bet: int, cap: int) -> pokerkit.Street:
        return pokerkit.Street(burn, holes, board, False, pokerkit.Opening.POSITION, bet, cap)

    streets = (
        street(False, (False, False), 0, SMALL_BET, preflop_raises),
        street(False, (), 3, SMALL_BET, MAX_BETS),  # no burn: the test deals every card
        street(False, (), 1, BIG_BET, MAX_BETS),
        street(False, (), 1, BIG_BET, MAX_BETS),
    )
    return pokerkit.State(AUTOMATIONS, pokerkit.Deck.STANDARD, (pokerkit.StandardHighHand,),
                          streets, pokerkit.BettingStructure.FIXED_LIMIT, True, 0, (1, 2), 0,
                          STACK, n)  # fmt: skip


def cards(values) -> str:
    return "".join(CARD_TEXTS[int(c)] for c in values)


def replay(state: pokerkit.State, holes, board, seat_hole, actions) -> list[int]:
    """Deal, play ``actions`` (street, seat, action) at ``state`` and return each seat's net
    chips. pokerkit raises ValueError on an action out of turn or against its rules."""
    for seat in range(len(seat_hole)):
        state.deal_hole(cards(holes[seat_hole[seat]]))
    street = 0
    for action_street, seat, action in actions:
        while street < action_street:
            street += 1
            state.deal_board(cards(board[BOARD_OF_STREET[street]]))
        assert state.actor_index == seat, (action_street, seat, state.actor_index)
        if action == FOLD:
            state.fold()
        elif action == CALL:
            state.check_or_call()
        else:
            assert action == RAISE
            state.complete_bet_or_raise_to()
    while state.status:  # the rest of the board, to the showdown
        street += 1
        state.deal_board(cards(board[BOARD_OF_STREET[street]]))
    return [stack - STACK for stack in state.stacks]


def real_deal(n: int, rng: np.random.Generator, board_cards: str = ""):
    """Cards for ``n`` seats, each hole's strength from them, and random equities (the
    decisions need not be good, only legal and varied)."""
    fixed = [CARD_TEXTS.index(board_cards[i : i + 2]) for i in range(0, len(board_cards), 2)]
    deck = np.array(fixed + [c for c in rng.permutation(52) if c not in fixed])
    board, holes = deck[:5], deck[5 : 5 + 2 * n].reshape(n, 2)
    seven = np.concatenate([holes, np.tile(board, (n, 1))], axis=1).astype(np.uint8)
    strength = evaluate7(seven)
    low = rng.uniform(0.0, 0.5)  # tables from timid to loose: folds, showdowns and caps
    equity = np.sort(rng.uniform(low, 1.0, (n, 4, n - 1)).astype(np.float32), axis=2)
    equity = equity[..., ::-1].copy()
    return holes, board, strength, equity


def chromosomes(n: int, rng: np.random.Generator) -> np.ndarray:
    return np.sort(rng.integers(-100, 101, (n, N_GENES, 2)), axis=2).astype(np.int8)


@pytest.mark.parametrize("n", [2, 3, 6, 10])
def test_every_hand_settles_as_pokerkit_settles_it(n):
    rng = np.random.default_rng(52 + n)
    seen = {"showdowns": 0, "uncontested": 0, "with folds": 0, "capped": 0}
    for _ in range(40):
        holes, board, strength, equity = real_deal(n, rng)
        players = chromosomes(n, rng)
        rotation = int(rng.integers(n * n))
        seat_hole, seat_player = seating(n, rotation)
        trace = play_hand_reference(equity, strength, seat_hole, seat_player, players)
        theirs = replay(referee(n), holes, board, seat_hole, trace.actions)
        ours = trace.net_by_seat
        sharers = sum(x != int(x) for x in ours)  # seats sharing a pot that does not divide
        split = sharers > 0
        np.testing.assert_allclose(ours, theirs, atol=sharers - 1 if split else 0)
        assert sum(theirs) == 0
        folds = sum(a == FOLD for _, _, a in trace.actions)
        seen["uncontested"] += folds == n - 1
        seen["showdowns"] += folds < n - 1
        seen["with folds"] += folds > 0
        raises = [sum(a == RAISE for t, _, a in trace.actions if t == st) for st in range(4)]
        seen["capped"] += raises[0] == MAX_BETS - 1 or max(raises[1:]) == MAX_BETS
    # the hands reached every way a pot is settled, and the cap
    assert min(seen["showdowns"], seen["with folds"], seen["capped"]) > 3, seen
    assert n > 3 or seen["uncontested"] > 3, seen  # big tables rarely fold to one seat


@pytest.mark.parametrize("n", [2, 3, 6, 10])
def test_a_board_that_plays_splits_the_pot_as_pokerkit_does(n):
    """A royal flush on the board: everyone still in at the showdown shares the pot."""
    rng = np.random.default_rng(n)
    shared = 0
    for _ in range(20):
        holes, board, strength, equity = real_deal(n, rng, board_cards="AsKsQsJsTs")
        players = chromosomes(n, rng)
        seat_hole, seat_player = seating(n, int(rng.integers(n * n)))
        trace = play_hand_reference(equity, strength, seat_hole, seat_player, players)
        theirs = replay(referee(n), holes, board, seat_hole, trace.actions)
        sharers = sum(x != int(x) for x in trace.net_by_seat)
        np.testing.assert_allclose(trace.net_by_seat, theirs, atol=max(sharers - 1, 0))
        assert sum(theirs) == 0
        shared += sum(a == FOLD for _, _, a in trace.actions) < n - 1
    assert shared > 0


def test_the_kernels_deal_sums_are_pokerkits():
    """Every rotation of a deal (36 hands at 6 seats) at pokerkit: each player's sum is what
    the numba engine reports for the deal."""
    n, rng = 6, np.random.default_rng(7)
    for _ in range(2):
        holes, board, strength, equity = real_deal(n, rng)
        players = chromosomes(n, rng)
        kernel = play_deals(equity[None], strength[None].astype(np.int32), players)
        theirs, slack = np.zeros(n), 0  # slack: the odd chips of split pots, a chip a sharer
        for rotation in range(n * n):
            seat_hole, seat_player = seating(n, rotation)
            trace = play_hand_reference(equity, strength, seat_hole, seat_player, players)
            net = replay(referee(n), holes, board, seat_hole, trace.actions)
            slack += max(sum(x != int(x) for x in trace.net_by_seat) - 1, 0)
            for seat in range(n):
                theirs[seat_player[seat]] += net[seat]
        np.testing.assert_allclose(kernel.net_per_deal[0], theirs, atol=slack, rtol=0)
        assert abs(theirs.sum()) == 0


def test_a_referee_with_a_lower_cap_refuses_a_hand():
    """The control: with one raise fewer allowed preflop, pokerkit refuses some capped hand
    (so the replay does check the cap)."""
    rng = np.random.default_rng(3)
    refused = 0
    for _ in range(200):
        holes, board, strength, equity = real_deal(3, rng)
        players = chromosomes(3, rng)
        seat_hole, seat_player = seating(3, 0)
        trace = play_hand_reference(equity, strength, seat_hole, seat_player, players)
        if sum(a == RAISE for t, _, a in trace.actions if t == 0) < MAX_BETS - 1:
            continue  # not capped preflop: nothing for the lower cap to refuse
        try:
            replay(referee(3, preflop_raises=MAX_BETS - 2), holes, board, seat_hole, trace.actions)
        except ValueError:
            refused += 1
        replay(referee(3), holes, board, seat_hole, trace.actions)  # the true cap accepts it
    assert refused > 0
