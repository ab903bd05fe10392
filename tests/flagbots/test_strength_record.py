"""The FlagBots strength match's record (benchmarks/search_strength.py ``--record``): what a
resumed run reads back, and where its SPRT may decide. The match itself takes hours; these
check the bookkeeping that lets it run across sessions."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tests.helpers.commands import ROOT

spec = importlib.util.spec_from_file_location(
    "search_strength", ROOT / "benchmarks" / "search_strength.py"
)
assert spec and spec.loader
strength = importlib.util.module_from_spec(spec)
spec.loader.exec_module(strength)

TEST = strength.SPRT(elo0=0.0, elo1=50.0, alpha=0.05, beta=0.05, max_units=600)
SUMMARY = {"ms": 2000, "seeds": [0, 24], "wins": 15, "draws": 26, "losses": 9}


def write(path: Path, *entries: dict) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return path


def test_pairs_appended_are_read_back_in_order(tmp_path: Path) -> None:
    record = tmp_path / "r.jsonl"
    pairs = [(3, [1.0, 0.5]), (4, [0.0, 0.5]), (5, [0.5, 1.0])]
    for seed, scores in pairs:
        strength.append(record, {"ms": 500.0, "seed": seed, "scores": scores})
    games, unordered, next_seed = strength.load_record(record, 500.0)
    assert games == [1.0, 0.5, 0.0, 0.5, 0.5, 1.0]
    assert (unordered, next_seed) == (0, 6)


def test_a_missing_record_is_a_new_match(tmp_path: Path) -> None:
    assert strength.load_record(tmp_path / "none.jsonl", 2000) == ([], 0, 0)
    assert strength.load_record(None, 2000) == ([], 0, 0)


def test_a_summary_counts_its_games_and_seeds_and_other_times_are_skipped(
    tmp_path: Path,
) -> None:
    record = write(
        tmp_path / "r.jsonl",
        SUMMARY,
        {"ms": 100, "seed": 90, "scores": [0.0, 0.0]},
        {"ms": 2000.0, "seed": 25, "scores": [1.0, 1.0]},
    )
    games, unordered, next_seed = strength.load_record(record, 2000.0)
    assert (len(games), unordered, next_seed) == (52, 50, 26)
    assert (games.count(1.0), games.count(0.5), games.count(0.0)) == (17, 26, 9)


def test_a_summary_after_pairs_or_a_torn_line_is_refused(tmp_path: Path) -> None:
    late = write(tmp_path / "late.jsonl", {"ms": 2000, "seed": 0, "scores": [1, 1]}, SUMMARY)
    with pytest.raises(SystemExit, match="late.jsonl:2: a summary line must come before"):
        strength.load_record(late, 2000)
    torn = tmp_path / "torn.jsonl"
    torn.write_text(json.dumps(SUMMARY) + '\n{"ms": 2000, "se')
    with pytest.raises(SystemExit, match="torn.jsonl:2: not a JSON line"):
        strength.load_record(torn, 2000)


def test_the_sprt_is_read_only_after_the_summed_up_games() -> None:
    """15 wins first would cross H1 inside the summary; the order is not known, so the path
    is read from its end on: the 50 games (+42 Elo) leave the test undecided."""
    games = [1.0] * 15 + [0.5] * 26 + [0.0] * 9
    assert strength.verdict(TEST, games, unordered=0) == "H1"  # control: read as if ordered
    assert strength.verdict(TEST, games, unordered=50) == "continue"
    # games after the summary decide as usual: a run of wins ends the match in H1
    assert strength.verdict(TEST, games + [1.0] * 40, unordered=50) == "H1"
    assert strength.verdict(TEST, games + [0.0] * 40, unordered=50) == "H0"


def test_the_cap_counts_the_summed_up_games() -> None:
    capped = strength.SPRT(elo0=0.0, elo1=50.0, alpha=0.05, beta=0.05, max_units=52)
    games = [1.0] * 15 + [0.5] * 26 + [0.0] * 9
    assert strength.verdict(capped, [*games, 0.5], unordered=50) == "continue"
    assert strength.verdict(capped, [*games, 0.5, 0.5], unordered=50) == "none"


def test_the_standing_line_reads_the_score_elo_and_llr() -> None:
    """+15 =26 -9: mean 0.56, variance (5.82 + 1/4) / 51 with the pseudo-unit, so the LLR is
    50 * 0.071463 * (1.12 - 1.071463) / (2 * 0.11902) = 0.73 (the formula worked by hand)."""
    games = [1.0] * 15 + [0.5] * 26 + [0.0] * 9
    line = strength.standing(TEST, games, unordered=50)
    assert line.startswith("50 games, +15 =26 -9, Elo +42 [")
    assert "LLR 0.73 in (-2.94, 2.94), SPRT continue" in line


def test_a_record_longer_than_the_cap_is_read_up_to_it() -> None:
    """Resumed with a smaller ``--pairs``: the games past the cap do not count (the run
    would have stopped there); the control reads them all."""
    games = [0.5] * 10 + [1.0] * 40
    capped = strength.SPRT(elo0=0.0, elo1=50.0, alpha=0.05, beta=0.05, max_units=10)
    assert strength.verdict(capped, games, unordered=0) == "none"
    assert strength.verdict(TEST, games, unordered=0) == "H1"
