"""Players: a protocol, a random legal player and synthetic players with known rates.

A ``SyntheticPlayer``'s behaviour is driven by the rates of specs/player_model.md §3, built so
that its realised rates converge to the parameters:
- ``aggression``: P(bet) in a turn where it could bet; ``bluff_frequency``: the share of its bets
  made with a weak hand (mid-rank percentile below 0.40) — the bet probability is split between
  weak and strong hands so that both hold at once (as far as the probabilities stay <= 1);
- ``acceptance_rate`` / ``raise_rate`` / ``ordago_rate``: answers to bets received (órdago also
  when opening, counted in the aggression); ``risk_tolerance``: the share of acceptances made
  with a weak hand (with órdago or raise rates above 0 the split of the remaining mass is
  approximate when a probability would exceed 1);
- ``mus_rate``: P(mus) in a mus turn; ``bet_size``: the tantos of its envidos.
Rates may differ per lance (``per_lance``), and ``shift_after=n`` switches to ``shifted`` after
n hands. Decisions use the player's own cards and the public state only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Protocol

import numpy as np

from sparring.mus.cards import FACES, hand_ranks
from sparring.mus.engine import DISCARD, MUS, NO_MUS
from sparring.mus.lance import ENVIDO, NO_QUIERO, ORDAGO, PASO, QUIERO, SUBIR, Action
from sparring.mus.strength import percentile

WEAK = 0.40


class Player(Protocol):
    """A Mus player sees only its observation (own cards + public history, §13).

    ``act(observation, legal)`` is the one agent protocol of Sparring (``arena.agents.Agent``):
    here ``legal`` holds the kinds of action the seat may take (``observation["legal"]``; an
    envido's amount goes up to ``observation["max_amount"]``)."""

    def act(self, observation: dict, legal: Sequence[str]) -> Action: ...
    def on_game_start(self, models: Any = None) -> None: ...
    def on_hand_end(self, revealed: tuple, public: tuple = ()) -> None:
        """The four hands shown at the end of the hand and the hand's public events."""


@lru_cache(maxsize=4096)
def mid_percentile(lance: str, ranks: tuple[int, ...], ocho_reyes: bool) -> float:
    """Cached mid-rank percentile of a hand (full deck) in a lance; for pares, juego and punto
    among the hands that take part (the only ones that bet there); 0 if it does not."""
    p = percentile(lance, ranks, ocho_reyes)
    if lance == "grande" or lance == "chica":
        return p.mid
    if p.p_lt == 0 and p.eligible_p_eq == 0:  # not taking part
        return 0.0
    return p.eligible_p_lt + p.eligible_p_eq / 2


def own_percentile(observation: dict, lance: str) -> float:
    """The mid-rank percentile of the observing player's hand in ``lance``."""
    ocho = observation["ocho_reyes"]
    ranks = tuple(sorted(hand_ranks((FACES[c % 10] for c in observation["hand"]), ocho)))
    return mid_percentile(lance, ranks, ocho)


def keep_kings_and_pairs(observation: dict) -> Action:
    """A simple discard: keep kings (and threes with ocho reyes) and paired cards, throw the
    rest (at least the lowest card)."""
    faces = [FACES[c % 10] for c in observation["hand"]]
    ranks = hand_ranks(faces, observation["ocho_reyes"])
    mask = 0
    for i, r in enumerate(ranks):
        if r < 10 and ranks.count(r) == 1:
            mask |= 1 << i
    if mask == 0:
        mask = 1 << int(np.argmin(ranks))
    return Action(DISCARD, mask)


class RandomPlayer:
    """Uniform over the legal actions (bets limited to 2..4 to keep hands short)."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict, legal: Sequence[str]) -> Action:
        kinds = list(legal)
        kind = kinds[int(self.rng.integers(len(kinds)))]
        if kind == DISCARD:
            return Action(DISCARD, int(self.rng.integers(1, 16)))
        if kind in (ENVIDO, SUBIR):
            top = max(2, min(4, observation["max_amount"]))
            return Action(kind, int(self.rng.integers(2, top + 1)))
        return Action(kind)

    def on_game_start(self, models=None) -> None:
        pass

    def on_hand_end(self, revealed, public=()) -> None:
        pass


@dataclass(frozen=True)
class Profile:
    aggression: float = 0.3
    bluff_frequency: float = 0.2
    acceptance_rate: float = 0.5
    risk_tolerance: float = 0.3
    raise_rate: float = 0.1
    ordago_rate: float = 0.02
    mus_rate: float = 0.5
    bet_size: int = 2  # tantos of its envidos (a bluffer who bets big makes folding cheap)

    def __post_init__(self) -> None:
        """Rates are finite probabilities, ``bet_size`` a whole number of tantos >= 1; raises
        ValueError naming the field otherwise."""
        for name in RATE_FIELDS:
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not (0.0 <= value <= 1.0)
            ):
                raise ValueError(f"{name}={value!r} is not allowed: expected a number in [0, 1]")
        if (
            isinstance(self.bet_size, bool)
            or not isinstance(self.bet_size, int)
            or self.bet_size < 1
        ):
            raise ValueError(f"bet_size={self.bet_size!r} is not allowed: expected an integer >= 1")


RATE_FIELDS = (
    "aggression",
    "bluff_frequency",
    "acceptance_rate",
    "risk_tolerance",
    "raise_rate",
    "ordago_rate",
    "mus_rate",
)


@dataclass
class SyntheticPlayer:
    profile: Profile = field(default_factory=Profile)
    per_lance: dict[str, Profile] = field(default_factory=dict)
    shift_after: int | None = None
    shifted: Profile | None = None
    seed: int = 0
    hands_seen: int = 0

    def __post_init__(self) -> None:
        self.rng = np.random.default_rng(self.seed)

    @classmethod
    def with_rates(
        cls,
        seed: int = 0,
        shift_after: int | None = None,
        shifted: dict | None = None,
        **rates: Any,  # Profile fields: rates in [0, 1], bet_size an int
    ) -> SyntheticPlayer:
        base = replace(Profile(), **rates)
        return cls(base, {}, shift_after, replace(base, **(shifted or {})), seed)

    def current(self, lance: str | None) -> Profile:
        if self.shift_after is not None and self.hands_seen >= self.shift_after:
            return self.shifted or self.profile
        return self.per_lance.get(lance or "", self.profile)

    def on_game_start(self, models=None) -> None:
        pass

    def on_hand_end(self, revealed, public=()) -> None:
        self.hands_seen += 1

    def _weak(self, obs: dict, lance: str) -> bool:
        return own_percentile(obs, lance) < WEAK

    def _split(self, rate: float, weak_share: float, weak: bool) -> float:
        """P(act | hand class) so that P(act) = rate and P(weak | act) = weak_share."""
        p = rate * weak_share / WEAK if weak else rate * (1 - weak_share) / (1 - WEAK)
        return min(1.0, p)

    def act(self, observation: dict, legal: Sequence[str]) -> Action:
        kinds = legal
        u = self.rng.random()
        if MUS in kinds:
            return Action(MUS if u < self.current("mus").mus_rate else NO_MUS)
        if DISCARD in kinds:
            return keep_kings_and_pairs(observation)
        lance = observation["lance"]
        prof = self.current(lance)
        weak = self._weak(observation, lance)
        o = prof.ordago_rate
        if PASO in kinds:  # open: órdago (o), envido (aggression - o) or pass
            if u < o:
                return Action(ORDAGO)
            bet = self._split(max(prof.aggression - o, 0.0), prof.bluff_frequency, weak)
            bet_now = self.rng.random() * (1 - o) < bet
            return Action(ENVIDO, prof.bet_size) if bet_now else Action(PASO)
        # a bet is pending: órdago (o), raise (raise_rate), accept (acceptance_rate) or refuse
        if ORDAGO in kinds and u < o:
            return Action(ORDAGO)
        taken = o if ORDAGO in kinds else 0.0
        if SUBIR in kinds and u < taken + prof.raise_rate:
            return Action(SUBIR, 2)
        taken += prof.raise_rate if SUBIR in kinds else 0.0
        accept = self._split(prof.acceptance_rate, prof.risk_tolerance, weak)
        if self.rng.random() * max(1 - taken, 1e-9) < accept:
            return Action(QUIERO)
        return Action(NO_QUIERO)
