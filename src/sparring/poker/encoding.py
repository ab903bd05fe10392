"""A seat's poker observation as numbers, for the OpenSpiel and PettingZoo bridges (#50).

``encode(observation, seats)`` reads the JSON dict of ``HoldemHand.observation(seat)`` alone
(never the hand), so it shows nothing the seat may not know: its own hole cards, the board dealt
so far, every bet, and the hands a showdown showed. The result is a flat float32 vector of
``size(seats)`` values, every one in [0, 1], laid out as ``LAYOUT`` says (n = seats):

==================  =======  ===========================================================
part                values   meaning
==================  =======  ===========================================================
``hole``            52       one-hot of the seat's two hole cards (card ``4 * rank + suit``)
``board``           52       one-hot of the board cards dealt so far (0, 3, 4 or 5)
``street``          4        one-hot: preflop, flop, turn, river (the last one played)
``seat``            n        one-hot of the observing seat (the button is always seat n-1)
``to_act``          n        one-hot of the seat to act; all zero once the hand is over
``active``          n        1 for each seat still in the hand (not folded)
``contributions``   n        chips each seat has put in, / ``MAX_CONTRIBUTION`` (48)
``to_call``         1        chips the seat owes to call, / ``MAX_TO_CALL`` (16)
``bets``            1        bets on this street (the big blind the first preflop), / 4
``pot``             1        chips in the pot, / (48 n)
``actions``         12 n     per street, per seat: folds (/1), calls (/5), raises (/4) made
``showdown``        52 n     per seat, one-hot of the hole cards a showdown showed
==================  =======  ===========================================================

That is ``111 + 68 n`` values: 247 heads-up, 791 at ten seats. ``actions`` counts each seat's
words of each street (``history``); the order of the words within a street is not kept (the
contributions, the bets and who is still in say what it decided).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import numpy as np

from sparring.poker.cards import CARD_TEXTS, N_CARDS
from sparring.poker.rules import ACTION_NAMES, BIG_BET, MAX_BETS, SMALL_BET, STREET_NAMES

MAX_CONTRIBUTION = MAX_BETS * (2 * SMALL_BET + 2 * BIG_BET)
"""The most chips one seat can put into a hand: four bets on each street (48)."""

MAX_TO_CALL = MAX_BETS * BIG_BET
"""The most chips a seat can owe at once: four big bets on the turn or river (16)."""

MAX_CALLS = MAX_BETS + 1
"""The most calls one seat makes on a street: one, and one more after each raise."""

_CARD = {text: c for c, text in enumerate(CARD_TEXTS)}
_WORD = {word: i for i, word in enumerate(ACTION_NAMES)}
_WORD_SCALE = {"fold": 1.0, "call": float(MAX_CALLS), "raise": float(MAX_BETS)}


@cache
def layout(seats: int) -> dict[str, slice]:
    """Where each part (see the module docstring) lies in the vector, at ``seats`` seats."""
    sizes = {
        "hole": N_CARDS,
        "board": N_CARDS,
        "street": len(STREET_NAMES),
        "seat": seats,
        "to_act": seats,
        "active": seats,
        "contributions": seats,
        "to_call": 1,
        "bets": 1,
        "pot": 1,
        "actions": len(STREET_NAMES) * seats * len(ACTION_NAMES),
        "showdown": seats * N_CARDS,
    }
    out, start = {}, 0
    for part, n in sizes.items():
        out[part] = slice(start, start + n)
        start += n
    return out


@cache
def _starts(seats: int) -> dict[str, int]:
    return {part: where.start for part, where in layout(seats).items()}


def size(seats: int) -> int:
    """The length of the vector at ``seats`` seats: ``111 + 68 * seats``."""
    return layout(seats)["showdown"].stop


def _cards(texts: Any) -> list[int]:
    try:
        return [_CARD[t] for t in texts]
    except (KeyError, TypeError) as err:
        raise ValueError(f"{texts!r} are not cards written like 'As'") from err


def _seat(part: str, value: Any, seats: int) -> int:
    if not isinstance(value, int) or not 0 <= value < seats:
        raise ValueError(f"{part}: index {value!r} is outside 0..{seats - 1}")
    return value


def encode(observation: Mapping[str, Any], seats: int) -> np.ndarray:
    """The observation of one seat (``HoldemHand.observation``) as ``size(seats)`` float32s in
    [0, 1]; a ValueError when it is no observation of a ``seats``-seat hand."""
    if observation.get("seats") != seats:
        raise ValueError(f"an observation of {observation.get('seats')!r} seats, not {seats}")
    at = _starts(seats)
    out = np.zeros(size(seats), dtype=np.float32)
    # the one-hot parts, gathered and set at once (the bridges encode at every step)
    ones = [at["hole"] + c for c in _cards(observation["hole"])]
    ones += [at["board"] + c for c in _cards(observation["board"])]
    try:
        ones.append(at["street"] + STREET_NAMES.index(observation["street"]))
    except ValueError:
        raise ValueError(f"street: {observation['street']!r} is none of {STREET_NAMES}") from None
    ones.append(at["seat"] + _seat("seat", observation["seat"], seats))
    if observation["to_act"] >= 0:
        ones.append(at["to_act"] + _seat("to_act", observation["to_act"], seats))
    for s, hole in observation["showdown"]:
        ones += [at["showdown"] + _seat("showdown", s, seats) * N_CARDS + c for c in _cards(hole)]
    out[ones] = 1.0
    active, chips = observation["active"], observation["contributions"]
    if len(active) != seats or len(chips) != seats:
        raise ValueError(f"active and contributions list {seats} seats")
    out[at["active"] : at["active"] + seats] = [float(bool(a)) for a in active]
    out[at["contributions"] : at["contributions"] + seats] = chips
    out[at["contributions"] : at["contributions"] + seats] /= MAX_CONTRIBUTION
    out[at["to_call"]] = observation["to_call"] / MAX_TO_CALL
    out[at["bets"]] = observation["bets"] / MAX_BETS
    out[at["pot"]] = observation["pot"] / (MAX_CONTRIBUTION * seats)
    actions, per_street = at["actions"], seats * len(ACTION_NAMES)
    for street, words in enumerate(observation["history"]):
        for s, word in words:
            out[actions + street * per_street + s * len(ACTION_NAMES) + _WORD[word]] += (
                1.0 / _WORD_SCALE[word]
            )
    return out
