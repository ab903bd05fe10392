"""One fixed-limit hold'em hand decision by decision, as a ``sparring.game_api`` game.

The rules are those of the table engine (specs/poker.md §6.1, the scalar helpers of
``rules.py``, as the readable reference in ``table.py`` plays them), but every decision is the
player's to make instead of a policy's:

- ``Holdem(seats).new_state(seed)`` deals the hole pairs and the board at once from the seed
  (the cards are then revealed street by street); no chance node is left;
- actions are the words ``fold``, ``call`` (a check when nothing is owed), ``raise`` (a bet when
  nothing was bet). The engine's conversions are in the legal actions instead: no ``fold`` when
  nothing is owed, no ``raise`` once a street has its four bets;
- ``observation(seat)`` shows the seat's own hole cards, the board dealt so far, every bet, and
  at a showdown the hands of the players still in; cards are text (``"As"``, ``cards.py``);
- ``returns()`` are the chips each seat won minus what it put in (zero-sum; a split pot is
  shared exactly).

For the OpenSpiel and PettingZoo bridges (#50) ``Holdem`` also gives its whole action set,
``actions()`` (the three words, an action's index its id), and a seat's observation as numbers,
``encode(observation)`` of ``observation_shape()`` (``poker.encoding``: ``111 + 68 * seats``
float32s in [0, 1], read from the observation alone).

What the arena knows of poker beyond the protocol (its table sizes, bb/100, its own agents) is
declared in ``poker.traits``, which ``Holdem`` inherits.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from sparring.game_api import TERMINAL, Game, IllegalActionError
from sparring.poker import encoding
from sparring.poker.cards import CARD_TEXTS
from sparring.poker.catalog import MAX_SEATS, MIN_SEATS
from sparring.poker.evaluator import evaluate7
from sparring.poker.rules import (
    ACTION_NAMES,
    CALL,
    FOLD,
    MAX_BETS,
    RAISE,
    STREET_NAMES,
    bet_size,
    blind_seats,
    first_to_act,
)
from sparring.poker.traits import PokerTraits

BOARD_SHOWN = (0, 3, 4, 5)
"""Board cards visible on each street."""
STREETS = len(BOARD_SHOWN)
"""Betting rounds of a hand of hold'em: preflop, flop, turn, river."""


class HoldemHand:
    """One hand in progress (see the module docstring). ``holes[s]`` and ``board`` are cards."""

    def __init__(
        self, holes: list[tuple[int, int]], board: list[int], streets: int = STREETS
    ) -> None:
        n = len(holes)
        if not MIN_SEATS <= n <= MAX_SEATS or len(board) != 5:
            raise ValueError(f"a hand has {MIN_SEATS}..{MAX_SEATS} hole pairs and 5 board cards")
        if not 1 <= streets <= STREETS:
            raise ValueError(f"a hand has 1..{STREETS} betting rounds, not {streets}")
        self.n, self.holes, self.board = n, [tuple(h) for h in holes], list(board)
        self.last_street = streets - 1  # the betting round after which the hand shows down
        # the cards' texts, made once: an observation is asked for at every decision
        self.hole_texts = [tuple(CARD_TEXTS[c] for c in h) for h in self.holes]
        self.board_texts = tuple(CARD_TEXTS[c] for c in self.board)
        self.contrib = [0] * n
        self.active = [True] * n
        self.history: list[list[list[Any]]] = []  # per street: [seat, word]
        self.net: list[float] | None = None
        self.shown: list[int] = []  # the seats whose cards a showdown showed
        sb, bb = blind_seats(n)
        self.contrib[sb], self.contrib[bb] = 1, 2
        self._start_street(0)

    # ------------------------------------------------------------------ betting
    def _start_street(self, street: int) -> None:
        n = self.n
        self.street = street
        self.history.append([])
        self.street_contrib = [0] * n
        self.acted = [False] * n
        if street == 0:
            sb, bb = blind_seats(n)
            self.street_contrib[sb], self.street_contrib[bb] = 1, 2
            self.current, self.bets = 2, 1
        else:
            self.current, self.bets = 0, 0
        self.seat = first_to_act(n, street)
        self._next_to_act()

    def _next_to_act(self) -> None:
        """Move ``seat`` on to the next player to act, or close the street (or the hand)."""
        n = self.n
        if sum(self.active) > 1:
            for _ in range(n):
                if self.active[self.seat] and not self.acted[self.seat]:
                    return
                self.seat = (self.seat + 1) % n
        if sum(self.active) == 1 or self.street == self.last_street:
            self._settle()
        else:
            self._start_street(self.street + 1)

    def _settle(self) -> None:
        pot = float(sum(self.contrib))
        alive = [s for s in range(self.n) if self.active[s]]
        winners = alive
        if len(alive) > 1:
            seven = np.array([[*self.holes[s], *self.board] for s in alive], dtype=np.uint8)
            strength = evaluate7(seven).tolist()
            winners = [s for s, v in zip(alive, strength, strict=True) if v == max(strength)]
            self.shown = alive
        self.net = [-float(c) for c in self.contrib]
        for s in winners:
            self.net[s] += pot / len(winners)
        self.seat = TERMINAL

    def owed(self, seat: int) -> int:
        """What ``seat`` must put in to call now (0 once the hand is over or it folded)."""
        if self.net is not None or not self.active[seat]:
            return 0
        return self.current - self.street_contrib[seat]

    # ------------------------------------------------------------------ the game API
    def current_player(self) -> int:
        return TERMINAL if self.net is not None else self.seat

    def legal_actions(self) -> list[str]:
        if self.net is not None:
            return []
        words = [ACTION_NAMES[FOLD]] if self.owed(self.seat) else []
        words.append(ACTION_NAMES[CALL])
        if self.bets < MAX_BETS:
            words.append(ACTION_NAMES[RAISE])
        return words

    def apply_action(self, action: str) -> None:
        if action not in self.legal_actions():
            raise IllegalActionError(
                f"{action!r} is not allowed now; allowed: {', '.join(self.legal_actions())}"
            )
        seat, kind = self.seat, ACTION_NAMES.index(action)
        if kind == RAISE:
            self.current += bet_size(self.street)
            self.bets += 1
            self.acted = [False] * self.n
        pay = 0 if kind == FOLD else self.current - self.street_contrib[seat]
        self.street_contrib[seat] += pay
        self.contrib[seat] += pay
        if kind == FOLD:
            self.active[seat] = False
        else:
            self.acted[seat] = True
        self.history[-1].append([seat, action])
        self.seat = (seat + 1) % self.n
        self._next_to_act()

    def is_terminal(self) -> bool:
        return self.net is not None

    def returns(self) -> list[float]:
        return list(self.net) if self.net is not None else [0.0] * self.n

    def observation(self, player: int) -> dict[str, Any]:
        # fresh lists throughout: an agent may change what it is given, never the hand
        return {
            "seat": player,
            "seats": self.n,
            "button": self.n - 1,
            "hole": list(self.hole_texts[player]),
            "board": list(self.board_texts[: self._board_shown()]),
            "street": STREET_NAMES[self.street],
            "to_act": self.current_player(),
            "to_call": self.owed(player),
            "bets": self.bets,
            "pot": sum(self.contrib),
            "contributions": self.contrib[:],
            "active": self.active[:],
            "history": [[[seat, word] for seat, word in street] for street in self.history],
            "showdown": [[s, list(self.hole_texts[s])] for s in self.shown],
        }

    def clone(self) -> HoldemHand:
        other = HoldemHand.__new__(HoldemHand)
        other.__dict__.update(self.__dict__)
        for name in ("contrib", "active", "street_contrib", "acted", "shown"):
            setattr(other, name, list(getattr(self, name)))
        other.history = [[list(a) for a in street] for street in self.history]
        other.net = None if self.net is None else list(self.net)
        return other

    def hidden_from(self, player: int) -> list[int]:
        """The cards ``player`` may not see now: others' hole cards (until a showdown shows
        them) and the board not yet dealt."""
        others = [s for s in range(self.n) if s != player and s not in self.shown]
        return [c for s in others for c in self.holes[s]] + self.board[self._board_shown() :]

    def _board_shown(self) -> int:
        """Board cards seen now: the street's, and all five once a showdown has shown hands
        (a hand of fewer ``streets`` shows down on the whole board)."""
        return 5 if self.shown else BOARD_SHOWN[self.street]


def _texts(cards: Any) -> list[str]:
    return [CARD_TEXTS[c] for c in cards]


class Holdem(PokerTraits):
    """Fixed-limit hold'em as a ``game_api.Game``: one hand at ``seats`` seats, of ``streets``
    betting rounds (4, the game; fewer is a smaller poker of the same rules, see
    ``with_variant``)."""

    name = "poker"
    constant_sum = 0.0

    def __init__(self, seats: int = 2, streets: int = STREETS) -> None:
        if not MIN_SEATS <= seats <= MAX_SEATS:
            raise ValueError(f"a table has {MIN_SEATS}..{MAX_SEATS} seats, got {seats}")
        if isinstance(streets, bool) or not isinstance(streets, int) or not 1 <= streets <= 4:
            raise ValueError(f"streets: 1..{STREETS} betting rounds, not {streets!r}")
        self.num_players, self.streets = seats, streets

    def at_table(self, seats: int) -> Holdem:
        """The game at ``seats`` seats: at n seats a unit is n hands of one deal, A in each
        seat once, B in the others (a duplicate rotation)."""
        return Holdem(seats, self.streets)

    def with_variant(self, variant: str) -> Holdem:
        """The game in ``variant``, ``streets=<1..4>``: the hand shows down on the whole board
        after that many betting rounds (``streets=1``: preflop betting only, a poker small
        enough for OpenSpiel's CFR to solve). Anything else is a ValueError saying what is
        allowed."""
        key, _, value = variant.partition("=")
        if key.strip() != "streets" or not value.strip().isdigit() or not 1 <= int(value) <= 4:
            raise ValueError(f"poker variant {variant!r}: expected streets=<1..{STREETS}>")
        return Holdem(self.num_players, int(value))

    def new_state(self, seed: int) -> HoldemHand:
        n = self.num_players
        deck = [int(c) for c in np.random.default_rng(seed).permutation(52)[: 2 * n + 5]]
        holes = [(deck[2 * s], deck[2 * s + 1]) for s in range(n)]
        return HoldemHand(holes, deck[2 * n :], self.streets)

    # ---------------------------------------------------------------- for the bridges (#50)
    def actions(self) -> Sequence[str]:
        """Every action a hand can offer, in a fixed order (an action's index is its id in the
        bridges): ``fold``, ``call`` (also a check), ``raise`` (also a bet)."""
        return ACTION_NAMES

    def observation_shape(self) -> tuple[int, ...]:
        """The shape of ``encode``'s array: ``111 + 68 * seats`` values (247 heads-up)."""
        return (encoding.size(self.num_players),)

    def encode(self, observation: dict[str, Any]) -> np.ndarray:
        """A seat's ``observation`` (and nothing else) as float32s in [0, 1], laid out as
        ``poker.encoding`` says; a ValueError for an observation of another table size."""
        return encoding.encode(observation, self.num_players)

    def snapshot(self, hand: HoldemHand) -> Hashable:
        return repr(sorted(hand.__dict__.items()))

    def illegal_actions(self, hand: HoldemHand, rng: random.Random) -> Sequence[object]:
        legal = hand.legal_actions()
        pool = ["fold", "call", "raise", "check", "bet", "Raise", FOLD, CALL]
        return [a for a in pool if a not in legal]

    def leaks(self, hand: HoldemHand, player: int, observation: dict[str, Any]) -> list[str]:
        """Every card ``player`` may not see, looked for in every text of its observation."""
        texts = _strings(observation)
        return [
            f"seat {player} sees {card}"
            for card in _texts(hand.hidden_from(player))
            if any(card in t for t in texts)
        ]


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (str(k), *_strings(v))]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return []


GAME: Game[str] = Holdem()
"""The registered poker: heads-up fixed-limit hold'em, one hand."""
