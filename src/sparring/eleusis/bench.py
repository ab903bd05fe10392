"""One benchmark cell: a scientist on a deck family at a starting harma over several seeds.

Seed i plays the deck instance ``make_deck(deck, i)`` with the game stream of seed i, so every
scientist of a cell meets the same decks and card sequences. The oracle's expected guesses come
from the exact policy evaluation (``theory.expected_guesses``).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

import numpy as np

from sparring.eleusis.decks import make_deck
from sparring.eleusis.env import deck_cdf, game_stream
from sparring.eleusis.informed import hypotheses
from sparring.eleusis.scientists import NAMES, NO_HYPOTHESES, parse_scientist, play_game
from sparring.eleusis.theory import expected_guesses, oracle_drift


@dataclass(frozen=True)
class CellResult:
    deck: str
    h0: int
    scientist: str
    seeds: int
    mean_guesses: float
    stderr: float
    dnf_rate: float
    oracle_expected: float  # mean over the cell's deck instances (inf if one cannot finish)
    regret: float  # mean of guesses - oracle expected, over decks that can finish
    pseudo_regret: float  # mean sum of d* - d(guess) over decks that cannot finish
    guesses_per_s: float
    drift: float  # mean oracle drift d* of the cell's decks

    def as_row(self) -> dict:
        return asdict(self)


def run_cell(cell: tuple[str, int, str], seeds: int, cap: int, first_seed: int = 0) -> CellResult:
    deck, h0, scientist = cell  # scientist: a spec, "name" or "name:key=value"
    name, param = parse_scientist(scientist)
    kind = NAMES.index(name)
    hyps = hypotheses(deck) if name == "informed" else NO_HYPOTHESES
    guesses, regrets, pseudo, expected, drifts = [], [], [], [], []
    dnf = 0
    played = 0
    elapsed = 0.0
    for seed in range(first_seed, first_seed + seeds):
        p = make_deck(deck, seed)
        drift = oracle_drift(p)
        oracle, policy = expected_guesses(p, h0, optimal=True) if drift > 0 else (np.inf, None)
        policy = policy if policy is not None else np.zeros(0, dtype=np.int64)
        start = time.perf_counter()
        n, finished, regret_sum = play_game(
            kind, param, deck_cdf(p), p, policy, hyps, h0, cap, game_stream(seed), seed
        )
        elapsed += time.perf_counter() - start
        played += n
        guesses.append(n)
        drifts.append(drift)
        expected.append(oracle)
        dnf += not finished
        if np.isfinite(oracle):
            regrets.append(n - oracle)
        else:
            pseudo.append(regret_sum)
    g = np.array(guesses, dtype=np.float64)
    return CellResult(
        deck=deck,
        h0=h0,
        scientist=scientist,
        seeds=seeds,
        mean_guesses=float(g.mean()),
        stderr=float(g.std(ddof=1) / np.sqrt(len(g))) if len(g) > 1 else 0.0,
        dnf_rate=dnf / seeds,
        oracle_expected=float(np.mean(expected)),
        regret=float(np.mean(regrets)) if regrets else float("nan"),
        pseudo_regret=float(np.mean(pseudo)) if pseudo else float("nan"),
        guesses_per_s=played / elapsed if elapsed > 0 else 0.0,
        drift=float(np.mean(drifts)),
    )
