"""The league's ranking agrees with the chips, and each distinct agent enters once (#47 item 12).

No Ray: every pair is written to the pair cache first, and ``parallel_map`` is replaced by one
that fails, so a league that would play a pair (a duplicate entrant's) fails the test instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sparring.champions import league as league_module
from sparring.champions.league import (
    CHIPS_TAG,
    LEGEND,
    RATING_TAG,
    distinct_entrants,
    play_league,
    tag_versions,
)
from sparring.champions.pairs import pair_path, write_pair
from sparring.ga.round_robin import Entrant, champion_entrant, chip_scores, field_edges, pair_record
from sparring.ga.round_robin import rate as deal_win_rating

SEATS = 10
DEALS = 300
DEAL_SET = "dealset"


def _player(k: int) -> Entrant:
    """A distinct chromosome entrant (its digest is its genes')."""
    genes = np.random.default_rng(k).integers(-100, 101, (540, 2)).astype(np.int8)
    return champion_entrant(f"p{k}", genes, SEATS)


def _skewed_edges(n: int, loser: int, seed: int = 0) -> dict[tuple[int, int], np.ndarray]:
    """Per-deal edges (i over j, bb/100) of a league of ``n`` where ``loser`` wins two deals in
    three by 20 bb/100 and loses the third by 200: -53 bb/100 a pair, yet the most deals won;
    it beats only entrant 0 in chips. The others' edges are their skill difference plus noise.
    (The shape of #47 item 12: rated 5th of 11, last in chips, beaten by 9 of 10.)"""
    rng = np.random.default_rng(seed)
    skill = np.linspace(30.0, -30.0, n)
    out: dict[tuple[int, int], np.ndarray] = {}
    for i in range(n):
        for j in range(i + 1, n):
            if loser in (i, j):
                other = j if i == loser else i
                rows = rng.permutation(DEALS)
                e = np.full(DEALS, 20.0)
                e[rows[: DEALS // 3]] = -200.0  # a third of the deals lost by whole pots
                e += rng.normal(0, 2, DEALS)
                if other == 0:
                    e = np.abs(e)  # the one opponent it beats in chips
                out[(i, j)] = e if i == loser else -e
            else:
                out[(i, j)] = skill[i] - skill[j] + rng.normal(0, 40, DEALS)
    return out


def _fill_cache(cache: Path, entrants: list[Entrant], edges: dict) -> None:
    """Each pair's (D, 2) columns, made so that ``deal_edges`` gives back ``edges``."""
    for (i, j), e in edges.items():
        path, flipped = pair_path(cache, DEAL_SET, entrants[i], entrants[j])
        write_pair(path, flipped, np.stack([e, -e], axis=1))


@pytest.fixture
def no_play(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every pair must come from the cache: playing one (which starts Ray) fails the test."""

    def refuse(*args: Any, **kwargs: Any) -> list:
        raise AssertionError(f"the league played pairs: {kwargs.get('description')}")

    monkeypatch.setattr(league_module, "parallel_map", refuse)


def _league(entrants: list[Entrant], cache: Path):
    return play_league(entrants, list(range(DEALS)), DEAL_SET, cache, 1.6, 1.1, 20, 0)


def test_the_deal_win_rating_can_contradict_the_chips_and_the_chips_rank():
    """The Bradley-Terry fit counts deals won, not chips: the skewed loser rates in the middle
    of the field, while its chips (and its pairs lost) put it last."""
    n, loser = 11, 4
    edges = _skewed_edges(n, loser)
    names = [f"p{k}" for k in range(n)]
    elo = deal_win_rating(names, edges, bootstrap=0).rating
    assert (elo > elo[loser]).sum() <= n // 2  # rated mid-table or better by deal wins ...
    chips = chip_scores(edges, n)
    assert np.argmin(chips[:, 0]) == loser  # ... last in chips
    assert chips[loser, 2] < chips[np.arange(n) != loser, 1].min()  # clearly: the intervals
    assert pair_record(edges, n)[loser].tolist() == [1, 0, n - 2]  # beat 1, lost to 9
    # the chips score is the mean edge over the others, per deal and overall
    mean_edge = [
        np.mean([(edges[(k, j)] if k < j else -edges[(j, k)]).mean() for j in range(n) if j != k])
        for k in range(n)
    ]
    np.testing.assert_allclose(chips[:, 0], mean_edge)
    np.testing.assert_allclose(field_edges(edges, n).sum(axis=0), 0.0, atol=1e-9)


def test_the_chips_need_every_pair():
    edges = _skewed_edges(3, 1)
    del edges[(0, 2)]
    with pytest.raises(ValueError, match="needs every pair"):
        chip_scores(edges, 3)


def test_the_league_table_ranks_a_bot_that_loses_chips_to_nearly_everyone_last(
    tmp_path: Path, no_play: None
):
    n, loser = 11, 4
    entrants = [_player(k) for k in range(n)]
    edges = _skewed_edges(n, loser)
    _fill_cache(tmp_path, entrants, edges)
    result = _league(entrants, tmp_path)
    assert (result.played, result.cached) == (0, n * (n - 1) // 2)
    assert result.ranking[-1] == "p4"
    assert result.ranking == [entrants[k].name for k in np.argsort(-result.chips[:, 0])]
    lines = result.text.splitlines()
    rows = [[c.strip() for c in line.strip("│").split("│")] for line in lines if "│" in line]
    assert [row[1] for row in rows] == result.ranking  # the table, best first
    assert rows[-1][:2] == [str(n), "p4"] and rows[-1][3] == "1-9"
    assert LEGEND in lines  # what each column means, in the artifact too
    chips = result.chips_of("p4")
    assert chips is not None and chips[0] == pytest.approx(result.chips[loser, 0])


def test_an_agent_entered_twice_enters_once_and_plays_no_pair_with_itself(
    tmp_path: Path, no_play: None
):
    """``champion@champion`` resolved to v7's genes is v7: dropped before playing, said in one
    line, and rated as v7."""
    v7 = _player(7)
    v7 = Entrant("v7", v7.lone, v7.table)
    alias = champion_entrant("champion@champion", v7.lone, SEATS)
    other = _player(1)
    kept, same_as = distinct_entrants([v7, other, alias])
    assert [e.name for e in kept] == ["v7", "p1"] and same_as == {"champion@champion": "v7"}
    _fill_cache(tmp_path, [v7, other], {(0, 1): np.full(DEALS, 5.0)})  # no pair with the alias
    result = _league([v7, other, alias], tmp_path)
    assert result.entrants == ["v7", "p1"] and result.same_as == {"champion@champion": "v7"}
    assert (result.played, result.cached) == (0, 1)
    said = "league: champion@champion plays exactly as v7 (the same agent): entered once, as v7"
    assert said in result.text.splitlines()
    assert result.rating_of("champion@champion") == result.rating_of("v7")
    assert result.chips_of("champion@champion") == result.chips_of("v7")


def test_a_league_of_one_agent_under_two_names_is_refused(tmp_path: Path, no_play: None):
    v1 = _player(1)
    with pytest.raises(Exception, match="two distinct agents"):
        _league([v1, champion_entrant("champion@champion", v1.lone, SEATS)], tmp_path)


class _Tags:
    """The registry's side of ``tag_versions``: each (version, key) -> value set."""

    def __init__(self) -> None:
        self.tags: dict[tuple[str, str], str] = {}

    def set_model_version_tag(self, model: str, version: str, key: str, value: str) -> None:
        self.tags[(version, key)] = value


def test_a_version_dropped_as_a_duplicate_is_tagged_with_the_agent_it_is(
    tmp_path: Path, no_play: None
):
    v1, v2 = _player(1), _player(2)
    v1, v2 = Entrant("v1", v1.lone, v1.table), Entrant("v2", v2.lone, v2.table)
    v3 = Entrant("v3", v1.lone, v1.table)  # re-registered: the same genes as v1
    _fill_cache(tmp_path, [v1, v2], {(0, 1): np.linspace(-10, 30, DEALS)})
    result = _league([v1, v2, v3], tmp_path)
    client = _Tags()
    tag_versions(client, "model", result, "run")  # type: ignore[arg-type]
    assert client.tags[("3", RATING_TAG)] == client.tags[("1", RATING_TAG)]
    assert client.tags[("1", CHIPS_TAG)].startswith("+10.0 bb/100 [+")
    assert client.tags[("3", CHIPS_TAG)] == client.tags[("1", CHIPS_TAG)]
    assert client.tags[("2", CHIPS_TAG)].startswith("-10.0 bb/100 [-")
    assert {client.tags[(v, "league_run")] for v in "123"} == {"run"}
