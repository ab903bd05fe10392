"""One benchmark cell: a scientist on a deck family at a starting harma over several seeds.

Seed i plays the deck instance ``make_deck(deck, i)`` with the game stream of seed i, so every
scientist of a cell meets the same decks and card sequences. The oracle's expected guesses come
from the exact policy evaluation (``theory.expected_guesses``).

The benchmark's results in its own terms, with no I/O: the two datasets' contracts
(``RESULTS_SPEC`` one row per cell, ``GAMES_SPEC`` one row per game and ``game_rows``), the
metrics per cell (``cell_metrics``, ``oracle_ratios``), the summary table (``summary_rows``) and
the plot's bars (``ratios_to_oracle``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache

import numpy as np
import pyarrow as pa

from sparring.eleusis.decks import make_deck
from sparring.eleusis.env import deck_cdf, game_stream
from sparring.eleusis.hypotheses import hypotheses
from sparring.eleusis.roster import NAMES, parse_scientist
from sparring.eleusis.scientists import NO_HYPOTHESES, play_game
from sparring.eleusis.theory import expected_guesses, oracle_drift
from sparring.runtime.config import metric_name
from sparring.runtime.storage.datasets import DatasetSpec

Cell = tuple[str, int, str]  # deck spec, starting harma, scientist spec


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


@dataclass(frozen=True)
class Games:
    """The games of one cell, seed by seed (index i = seed first_seed + i)."""

    guesses: np.ndarray  # int64
    finished: np.ndarray  # bool
    regret_sum: np.ndarray  # sum of d* - d(guess) per game
    oracle_expected: np.ndarray  # the optimal policy's expected guesses on deck i (inf: cannot)
    drift: np.ndarray  # d* of deck i
    elapsed: float  # seconds spent playing (deck set-up excluded)
    first_seed: int = 0

    @property
    def seeds(self) -> np.ndarray:
        return np.arange(self.first_seed, self.first_seed + len(self.guesses))


@lru_cache(maxsize=8192)
def deck_instance(deck: str, seed: int, h0: int) -> tuple[np.ndarray, float, float, np.ndarray]:
    """Deck ``seed`` of ``deck`` with its drift, the optimal policy's expected guesses from
    ``h0`` (inf if it cannot finish) and that policy. Cached: every scientist of a benchmark
    meets the same decks, and the policy iteration costs more than a short game. The arrays are
    shared: callers must not modify them (left writable: a read-only array is another numba
    signature, compiled once more)."""
    p = make_deck(deck, seed)
    drift = oracle_drift(p)
    oracle, policy = expected_guesses(p, h0, optimal=True) if drift > 0 else (np.inf, None)
    policy = policy if policy is not None else np.zeros(0, dtype=np.int64)
    return p, drift, oracle, policy


def play_games(cell: tuple[str, int, str], seeds: int, cap: int, first_seed: int = 0) -> Games:
    """Play the cell's games: seed i is deck instance i with card stream i, so two scientists'
    games of the same seed can be compared pair by pair."""
    deck, h0, scientist = cell  # scientist: a spec, "name" or "name:key=value"
    name, param = parse_scientist(scientist)
    kind = NAMES.index(name)
    hyps = hypotheses(deck) if name == "informed" else NO_HYPOTHESES
    rows = []
    elapsed = 0.0
    for seed in range(first_seed, first_seed + seeds):
        p, drift, oracle, policy = deck_instance(deck, seed, h0)
        start = time.perf_counter()
        n, done, regret = play_game(
            kind, param, deck_cdf(p), p, policy, hyps, h0, cap, game_stream(seed), seed
        )
        elapsed += time.perf_counter() - start
        rows.append((n, done, regret, oracle, drift))
    guesses, finished, regret_sums, oracles, drifts = (
        np.asarray(col) for col in zip(*rows, strict=True)
    )
    return Games(
        guesses.astype(np.int64),
        finished.astype(bool),
        regret_sums,
        oracles,
        drifts,
        elapsed,
        first_seed,
    )


def summarise(cell: tuple[str, int, str], games: Games) -> CellResult:
    """The cell's row: means over its games; regret over the decks that can finish,
    pseudo-regret over those that cannot."""
    deck, h0, scientist = cell
    g = games.guesses.astype(np.float64)
    can_finish = np.isfinite(games.oracle_expected)
    regret = g[can_finish] - games.oracle_expected[can_finish]
    pseudo = games.regret_sum[~can_finish]
    return CellResult(
        deck=deck,
        h0=h0,
        scientist=scientist,
        seeds=len(g),
        mean_guesses=float(g.mean()),
        stderr=float(g.std(ddof=1) / np.sqrt(len(g))) if len(g) > 1 else 0.0,
        dnf_rate=float(np.mean(~games.finished)),
        oracle_expected=float(np.mean(games.oracle_expected)),
        regret=float(regret.mean()) if regret.size else float("nan"),
        pseudo_regret=float(pseudo.mean()) if pseudo.size else float("nan"),
        guesses_per_s=float(g.sum() / games.elapsed) if games.elapsed > 0 else 0.0,
        drift=float(np.mean(games.drift)),
    )


def run_cell(cell: tuple[str, int, str], seeds: int, cap: int, first_seed: int = 0) -> CellResult:
    """One benchmark cell: ``seeds`` games of a scientist on a deck family at a harma."""
    return summarise(cell, play_games(cell, seeds, cap, first_seed))


def run_cell_with_games(
    cell: tuple[str, int, str], seeds: int, cap: int
) -> tuple[CellResult, Games]:
    """``run_cell`` that also hands back the games (for paired comparisons)."""
    games = play_games(cell, seeds, cap)
    return summarise(cell, games), games


BASELINE = "frequency"  # the report's scientist: the others are compared with it game by game


def versus_baseline(
    cells: list[tuple[str, int, str]], games: list[Games]
) -> dict[tuple[str, int, str], tuple[float, float, float]]:
    """Per cell other than the baseline's: mean guesses minus the baseline's on the same games,
    with a 95% interval; empty when the baseline is not in the grid."""
    by_cell = dict(zip(cells, games, strict=True))
    return {
        (deck, h0, scientist): paired_difference(g, by_cell[(deck, h0, BASELINE)])
        for (deck, h0, scientist), g in by_cell.items()
        if scientist != BASELINE and (deck, h0, BASELINE) in by_cell
    }


def paired_difference(a: Games, b: Games) -> tuple[float, float, float]:
    """Mean of a's guesses minus b's over the same seeds, with a normal 95% interval: the
    games share decks and card streams, so the pairs cancel most of the deck-to-deck noise."""
    diff = a.guesses.astype(np.float64) - b.guesses.astype(np.float64)
    half = 1.96 * diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else float("inf")
    return float(diff.mean()), float(diff.mean() - half), float(diff.mean() + half)


# -- the benchmark's results ------------------------------------------------------------------

RESULTS_SPEC = DatasetSpec(
    name="eleusis_bench",
    version=1,
    schema=pa.schema(
        [
            ("deck", pa.string()),
            ("h0", pa.int64()),
            ("scientist", pa.string()),
            ("seeds", pa.int64()),
            ("mean_guesses", pa.float64()),
            ("stderr", pa.float64()),
            ("dnf_rate", pa.float64()),
            ("oracle_expected", pa.float64()),
            ("regret", pa.float64()),
            ("pseudo_regret", pa.float64()),
            ("guesses_per_s", pa.float64()),
            ("drift", pa.float64()),
        ]
    ),
)  # one row per cell: CellResult.as_row()

GAMES_SPEC = DatasetSpec(
    name="eleusis_bench_games",
    version=1,
    schema=pa.schema(
        [
            ("deck", pa.string()),
            ("h0", pa.int64()),
            ("scientist", pa.string()),
            ("seed", pa.int64()),  # deck instance and card stream
            ("guesses", pa.int64()),
            ("finished", pa.bool_()),
            ("pseudo_regret", pa.float64()),  # sum of d* - d(guess) over the game
            ("oracle_expected", pa.float64()),  # on this deck (inf: it cannot finish)
        ]
    ),
)  # one row per game: game_rows


def game_rows(cells: Sequence[Cell], games: Sequence[Games]) -> list[dict]:
    """The ``GAMES_SPEC`` rows: every game of every cell, cell by cell and seed by seed."""
    return [
        {
            "deck": deck,
            "h0": h0,
            "scientist": scientist,
            "seed": int(seed),
            "guesses": int(g.guesses[i]),
            "finished": bool(g.finished[i]),
            "pseudo_regret": float(g.regret_sum[i]),
            "oracle_expected": float(g.oracle_expected[i]),
        }
        for (deck, h0, scientist), g in zip(cells, games, strict=True)
        for i, seed in enumerate(g.seeds)
    ]


Paired = dict[Cell, tuple[float, float, float]]  # versus_baseline: mean, low, high per cell


def cell_metrics(results: Sequence[CellResult], paired: Paired) -> dict[str, float]:
    """Per cell (``<deck>/<h0>/<scientist>/...``): mean guesses, DNF rate, guesses/s, the
    regret and pseudo-regret where finite, and the paired difference with the baseline
    (``minus_baseline`` and its 95% bounds) where ``paired`` has one."""
    metrics: dict[str, float] = {}
    for r in results:
        base = metric_name(r.deck, r.h0, r.scientist)
        metrics[f"{base}/mean_guesses"] = r.mean_guesses
        metrics[f"{base}/dnf_rate"] = r.dnf_rate
        metrics[f"{base}/guesses_per_s"] = r.guesses_per_s
        if np.isfinite(r.regret):
            metrics[f"{base}/regret"] = r.regret
        if np.isfinite(r.pseudo_regret):
            metrics[f"{base}/pseudo_regret"] = r.pseudo_regret
        if (r.deck, r.h0, r.scientist) in paired:
            mean, low, high = paired[(r.deck, r.h0, r.scientist)]
            metrics[f"{base}/minus_baseline"] = mean
            metrics[f"{base}/minus_baseline_low"] = low
            metrics[f"{base}/minus_baseline_high"] = high
    return metrics


REFERENCES = ("oracle", "optimal")  # they define the yardstick: not in the ratios


def _finite_oracle(r: CellResult) -> bool:
    return bool(np.isfinite(r.oracle_expected) and r.oracle_expected > 0)


def oracle_ratios(results: Sequence[CellResult]) -> dict[str, float]:
    """Mean guesses over the oracle's expected guesses, per scientist (``guesses_over_oracle/
    <name>``) and over every non-reference scientist (``guesses_over_oracle``), across the cells
    whose decks can finish (1 = as good as the oracle; lower is better)."""
    per: dict[str, list[float]] = {}
    for r in results:
        name = r.scientist.split(":", 1)[0]
        if name in REFERENCES or not _finite_oracle(r):
            continue
        per.setdefault(name, []).append(r.mean_guesses / r.oracle_expected)
    out = {f"guesses_over_oracle/{name}": float(np.mean(v)) for name, v in per.items()}
    if per:
        out["guesses_over_oracle"] = float(np.mean([np.mean(v) for v in per.values()]))
    return out


SUMMARY_TITLE = "Eleusis: guesses per game"
SUMMARY_COLUMNS = ("deck", "H0", "scientist", "mean ± s.e.", "oracle E", "DNF", "guesses/s",
                   f"- {BASELINE} (95%)")  # fmt: skip


def paired_text(difference: tuple[float, float, float] | None) -> str:
    """``-1.5 [-16.5, +13.5]``: a paired difference and its interval ("" for none)."""
    if difference is None:
        return ""
    mean, low, high = difference
    return f"{mean:+,.1f} [{low:+,.1f}, {high:+,.1f}]"


def summary_rows(results: Sequence[CellResult], paired: Paired) -> list[list]:
    """The summary table's rows (``SUMMARY_COLUMNS``), one per cell."""
    return [
        [
            r.deck,
            r.h0,
            r.scientist,
            f"{r.mean_guesses:,.1f} ± {r.stderr:,.1f}",
            f"{r.oracle_expected:,.1f}",
            f"{round(r.dnf_rate * r.seeds)}/{r.seeds}",  # a count: 1 in 1,000 is not 0.00
            f"{r.guesses_per_s:,.0f}",
            paired_text(paired.get((r.deck, r.h0, r.scientist))),
        ]
        for r in results
    ]


def ratios_to_oracle(
    results: Sequence[CellResult],
    decks: Sequence[str],
    h0s: Sequence[int],
    scientists: Sequence[str],
) -> tuple[list[str], dict[str, list[float]]]:
    """The plot's bars: a label per (deck, H0) group (``<deck> H0=<h0>``) and, per scientist,
    its mean guesses over the oracle's expected guesses in each group (0 where the deck cannot
    finish). Every (deck, h0, scientist) must have a result (the first one counts)."""
    by_cell: dict[Cell, CellResult] = {}
    for r in results:
        by_cell.setdefault((r.deck, r.h0, r.scientist), r)
    labels = [f"{d} H0={h}" for d in decks for h in h0s]
    ratio: dict[str, list[float]] = {s: [] for s in scientists}
    for d in decks:
        for h in h0s:
            for s in scientists:
                r = by_cell[(d, h, s)]
                ratio[s].append(r.mean_guesses / r.oracle_expected if _finite_oracle(r) else 0.0)
    return labels, ratio
