"""Probabilistic Eleusis as a one-player ``sparring.game_api`` game: a scientist against nature.

``Eleusis(deck, harma, cap).new_state(seed)`` draws the hidden distribution p of ``deck``
(``decks.make_deck``) and plays an ``env.EleusisGame`` with the seed's own stream, so nature's
draws are resolved inside ``apply_action`` (no chance node):

- player 0 is the scientist, the only player; actions are cards as the line protocol writes
  them, ``"H 12"`` (suit C, D, H, S, number 1..13), all 52 legal until the game is over;
- ``observation(0)`` is the harma, the guesses made, the cap and the feedback on the last guess
  (suit right, number right). The agent remembers earlier feedback itself: the drawn card and p
  are hidden, and shown only in so far as a "both right" feedback names the card;
- the game ends when the harma is gone (finished) or at the cap (DNF). ``returns()`` is
  ``[-guesses]`` (the spec's score is the guesses needed: fewer is better; a DNF scores -cap).
  A one-player game has no opponent to sum with: ``constant_sum`` is None.

The registered game has the spec's starting harma (100) but a cap of 2,000 guesses: through the
arena every guess is a message. The benchmark's 1,000,000 is ``Eleusis(cap=env.CAP)``.

For the bridges (``sparring.interop``), ``Eleusis`` offers ``actions()`` (the 52 cards,
``CARDS``: an action's index is its card index), ``observation_shape()`` and
``encode(observation)`` (the observation as numbers, from it alone): ``eleusis.encoding`` says
what they hold.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from sparring.eleusis import encoding
from sparring.eleusis.cards import N_CARDS, card_name
from sparring.eleusis.decks import make_deck
from sparring.eleusis.env import DEFAULT_HARMA, EleusisGame, Feedback
from sparring.eleusis.traits import EleusisTraits
from sparring.game_api import TERMINAL, Game, IllegalActionError

CARDS = tuple(card_name(c) for c in range(N_CARDS))
"""Every action, in card-index order: "C 1" .. "S 13"."""
_INDEX = {name: c for c, name in enumerate(CARDS)}
ARENA_CAP = 2_000


class EleusisPlay:
    """One game of a scientist (see the module docstring)."""

    def __init__(self, game: EleusisGame) -> None:
        self.game = game
        self.last: Feedback | None = None

    def current_player(self) -> int:
        return TERMINAL if self.game.over else 0

    def legal_actions(self) -> list[str]:
        return [] if self.game.over else list(CARDS)

    def apply_action(self, action: str) -> None:
        if self.game.over:
            raise IllegalActionError("the game is over")
        if not isinstance(action, str) or action not in _INDEX:
            raise IllegalActionError(f"{action!r} is not a card: write it like 'H 12'")
        self.last = self.game.guess(_INDEX[action])

    def is_terminal(self) -> bool:
        return self.game.over

    def returns(self) -> list[float]:
        return [-float(self.game.guesses)] if self.game.over else [0.0]

    def observation(self, player: int) -> dict[str, Any]:
        last = self.last
        return {
            "harma": self.game.harma,
            "guesses": self.game.guesses,
            "cap": self.game.cap,
            "last": None
            if last is None
            else {
                "guess": CARDS[last.guess],
                "suit_right": last.suit_right,
                "number_right": last.number_right,
            },
            "finished": self.game.finished,
            "dnf": self.game.dnf,
        }

    def feedback_text(self) -> str:
        """The last feedback as one mark, for a readable record: ``=`` both right, ``s`` the
        suit right, ``n`` the number right, ``-`` neither ("" before the first guess)."""
        last = self.last
        if last is None:
            return ""
        if last.suit_right and last.number_right:
            return "="
        return "s" if last.suit_right else "n" if last.number_right else "-"

    def clone(self) -> EleusisPlay:
        other = EleusisPlay(copy.copy(self.game))  # the deck's cdf is shared, never written
        other.last = self.last
        return other


class Eleusis(EleusisTraits):
    """Eleusis as a ``game_api.Game`` (see the module docstring; its traits: ``eleusis.traits``)."""

    name = "eleusis"
    num_players = 1
    constant_sum = None

    def __init__(
        self, deck: str = "dirichlet", harma: int = DEFAULT_HARMA, cap: int = ARENA_CAP
    ) -> None:
        make_deck(deck)  # a bad deck fails here, not at the first game
        self.deck, self.harma, self.cap = deck, harma, cap

    def new_state(self, seed: int) -> EleusisPlay:
        return EleusisPlay(EleusisGame(make_deck(self.deck, seed), seed, self.harma, self.cap))

    # The bridges' methods (``sparring.interop``): see ``eleusis.encoding``.
    def actions(self) -> tuple[str, ...]:
        """Every card, in card-index order (``CARDS``): all of them are legal until the end."""
        return CARDS

    def observation_shape(self) -> tuple[int, ...]:
        return (encoding.SIZE,)

    def encode(self, observation: dict[str, Any]) -> np.ndarray:
        """``observation`` (``EleusisPlay.observation(0)``, alone) as float32 numbers."""
        return encoding.encode(observation, self.harma)

    def with_variant(self, variant: str) -> Eleusis:
        """The game with the settings of a contest, ``deck=<deck>;harma=<h0>;cap=<guesses>``
        (the arena config's ``eleusis.*``)."""
        settings = dict(item.split("=", 1) for item in variant.split(";"))
        return Eleusis(settings["deck"], int(settings["harma"]), int(settings["cap"]))

    def snapshot(self, play: EleusisPlay) -> Hashable:
        g = play.game
        last = play.last
        seen = None if last is None else (last.guess, last.suit_right, last.number_right)
        return int(g.state), g.harma, g.guesses, g.drawn, seen, g.cdf.tobytes()

    def illegal_actions(self, play: EleusisPlay, rng: random.Random) -> Sequence[object]:
        return ["H 14", "Z 1", "h 12", "H12", rng.randrange(N_CARDS)]

    def leaks(self, play: EleusisPlay, player: int, observation: dict[str, Any]) -> list[str]:
        """The last drawn card may show only when the feedback was "both right"."""
        drawn, last = play.game.drawn, play.last
        if drawn is None or last is None or (last.suit_right and last.number_right):
            return []
        if CARDS[drawn] in _values(observation):
            return [f"the observation shows the drawn card {CARDS[drawn]}"]
        return []


def _values(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [x for v in value.values() for x in _values(v)]
    if isinstance(value, list):
        return [x for v in value for x in _values(v)]
    return [value]


GAME: Game[str] = Eleusis()
"""The registered Eleusis: a Dirichlet deck, harma 100, at most 2,000 guesses."""
