"""Mus: complete hands per second per core with four synthetic players, against random legal
players through the same engine.

    python benchmarks/mus_engine.py [--quick]

Both play whole matches (decision log on); the percentiles the synthetic players use are
filled before the timing (once per process). That fill is measured too, both ways in the same
run: every hand of every lance scanned against every multiset (``mus.strength.scan``, how a
process filled it before 2026-12-05) against the one-pass tables (``full_deck_table``).

Where the Python engine's limit lies: the Python calls a hand makes (counted by cProfile over
the same kind of matches) times what an empty Python call costs here is the fastest that engine
could be, whatever its functions did.

The compiled engine (``mus.kernel``, through ``synthetic_play.play_synthetic_match``) plays the
same matches with the same seeds; the figure is measured three ways: the match alone (the log as
integer rows), with the log as a Parquet-ready table, and with it as ``Decision`` records (what
the validate grid reads). Each is a ratio to the Python engine's synthetic figure of this run;
the logs are checked equal to the Python engine's before the timing.
"""

from __future__ import annotations

import cProfile
import pstats
import sys
import time
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import parser, report

from sparring.mus.engine import MusGame
from sparring.mus.log import play_match
from sparring.mus.players import RandomPlayer, SyntheticPlayer, mid_percentile
from sparring.mus.strength import LANCE_KEYS, full_deck_table, multisets, scan
from sparring.mus.synthetic_play import play_synthetic_match, to_arrow


def hands_per_second(make_players, matches: int) -> tuple[float, int]:
    """The Python engine: hands/s of ``matches`` matches (players made before the clock)."""
    game, tables = MusGame(), [make_players(m) for m in range(matches)]
    start, hands = time.perf_counter(), 0
    for m, players in enumerate(tables):
        state, _ = play_match(game, players, seed=m, match_id=m)
        hands += state.hand_number
    return hands / (time.perf_counter() - start), hands


def synthetic_players(m: int) -> list[SyntheticPlayer]:
    return [SyntheticPlayer.with_rates(seed=4 * m + i) for i in range(4)]


def compiled_hands_per_second(matches: int, log: str, repeats: int = 3) -> float:
    """The compiled engine on the matches ``hands_per_second`` plays, best of ``repeats`` (a
    pass is ~0.1 s: the machine's hiccups matter); ``log`` is "rows", "table" (one table of
    every match, as ``sparring mus simulate`` writes) or "decisions" (each match's records, as
    the validate grid reads them). Players are made before the clock, as there."""
    best = 0.0
    for _ in range(repeats):
        tables = [synthetic_players(m) for m in range(matches)]
        start, played = time.perf_counter(), []
        for m, players in enumerate(tables):
            played.append(play_synthetic_match(players, seed=m, match_id=m))
            if log == "decisions":
                played[-1].decisions()
        if log == "table":
            to_arrow(played)
        hands = sum(p.hand_number for p in played)
        best = max(best, hands / (time.perf_counter() - start))
    return best


def check_same_logs(matches: int) -> None:
    """The compiled engine's logs are the Python engine's (else the timing compares nothing)."""
    for m in range(matches):
        _, records = play_match(MusGame(), synthetic_players(m), seed=m, match_id=m)
        played = play_synthetic_match(synthetic_players(m), seed=m, match_id=m)
        if played.decisions() != records:
            raise SystemExit(f"match {m}: the compiled engine's log differs from the Python one")
        played.table()  # warms pyarrow up


def calls_per_hand(matches: int) -> float:
    """Python calls a hand makes with four synthetic players (cProfile's count)."""
    profile = cProfile.Profile()
    profile.enable()
    _, hands = hands_per_second(
        lambda m: [SyntheticPlayer.with_rates(seed=4 * m + i) for i in range(4)], matches
    )
    profile.disable()
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    return sum(entry[1] for entry in stats.values()) / hands


def _nothing() -> None:
    pass


def fill_seconds(repeats: int) -> tuple[float, float]:
    """Best wall seconds to know every hand's full-deck percentile in every lance (both reyes
    variants): by scanning each hand, and by building the tables."""
    scans, tables = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        for ocho in (True, False):
            for lance in LANCE_KEYS:
                for m in multisets(ocho):
                    scan(lance, m, ocho)
        scans.append(time.perf_counter() - start)
        full_deck_table.cache_clear()
        start = time.perf_counter()
        for ocho in (True, False):
            for lance in LANCE_KEYS:
                full_deck_table(lance, ocho)
        tables.append(time.perf_counter() - start)
    return min(scans), min(tables)


def main() -> None:
    args = parser(__doc__).parse_args()
    matches = 20 if args.quick else 200
    scanned, tabled = fill_seconds(1 if args.quick else 3)
    for lance in ("grande", "chica", "pares", "juego", "punto"):
        for m in multisets(True):
            mid_percentile(lance, m, True)
    synth, n_synth = hands_per_second(synthetic_players, matches)
    check_same_logs(5)
    compiled = {
        log: compiled_hands_per_second(matches, log) for log in ("rows", "table", "decisions")
    }
    rand, n_rand = hands_per_second(lambda m: [RandomPlayer(4 * m + i) for i in range(4)], matches)
    calls = calls_per_hand(max(matches // 4, 5))
    empty_call = min(timeit.repeat(_nothing, number=1_000_000, repeat=3)) / 1_000_000
    ceiling = 1 / (calls * empty_call)
    report(
        "mus engine (complete hands, one core)",
        [
            ("synthetic players, hands/s", synth, f"{n_synth:,} hands in {matches} matches"),
            (
                "random legal players, hands/s",
                rand,
                f"{n_rand:,} hands; synthetic/random {synth / rand:.2f}x",
            ),
            ("Python calls a hand, synthetic players", calls, f"empty: {empty_call * 1e9:.0f} ns"),
            ("hands/s were every call empty (ceiling)", ceiling, f"{synth / ceiling:.2f} of it"),
            (
                "compiled engine, synthetic players, hands/s",
                compiled["rows"],
                f"{compiled['rows'] / synth:.1f}x the Python engine; same logs",
            ),
            (
                "  with the log as a table (Parquet-ready)",
                compiled["table"],
                f"{compiled['table'] / synth:.1f}x",
            ),
            (
                "  with the log as Decision records",
                compiled["decisions"],
                f"{compiled['decisions'] / synth:.1f}x",
            ),
            ("percentile fill, every hand scanned, s", scanned, "the baseline"),
            ("percentile fill, one-pass tables, s", tabled, f"{tabled / scanned:.4f}x"),
        ],
        {
            "synthetic_hands_per_s": round(synth),
            "random_hands_per_s": round(rand),
            "ratio": round(synth / rand, 2),
            "python_calls_per_hand": round(calls),
            "empty_call_ns": round(empty_call * 1e9, 1),
            "ceiling_hands_per_s": round(ceiling),
            "compiled_hands_per_s": round(compiled["rows"]),
            "compiled_table_hands_per_s": round(compiled["table"]),
            "compiled_decisions_hands_per_s": round(compiled["decisions"]),
            "compiled_ratio": round(compiled["rows"] / synth, 1),
            "fill_scan_s": round(scanned, 3),
            "fill_tables_s": round(tabled, 4),
            "goal_hands_per_s": 20000,
            "quick": args.quick,
        },
    )


if __name__ == "__main__":
    main()
