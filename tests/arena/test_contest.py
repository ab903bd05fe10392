"""How a unit is scored: game by game, or on its totals where the returns are amounts."""

from __future__ import annotations

import numpy as np
import pytest

from sparring import game_api
from sparring.arena.contest import score_interval, unit_score


def game(returns, seating, forfeit_seat=None) -> dict:
    return {"returns": returns, "seating": seating, "forfeit_seat": forfeit_seat}


SWAPPED = (["A", "B"], ["B", "A"])


@pytest.mark.parametrize(
    ("games", "by_total", "score"),
    [
        # FlagBots: a win and a draw are three quarters of the unit
        ([game([1, -1], SWAPPED[0]), game([0, 0], SWAPPED[1])], False, 0.75),
        # poker: A won 10 chips with the cards of one seat and lost 4 with the other's
        ([game([10, -10], SWAPPED[0]), game([4, -4], SWAPPED[1])], True, 1.0),
        ([game([10, -10], SWAPPED[0]), game([4, -4], SWAPPED[1])], False, 0.5),
        ([game([-3, 3], SWAPPED[0]), game([3, -3], SWAPPED[1])], True, 0.0),
        ([game([2, -2], SWAPPED[0]), game([2, -2], SWAPPED[1])], True, 0.5),
        # a forfeit loses the unit whatever the other hand won (its -1 is no chip count)
        ([game([-1, 1], SWAPPED[0], 0), game([-30, 30], SWAPPED[1])], True, 0.0),
        ([game([1, -1], SWAPPED[0], 1), game([30, -30], SWAPPED[1])], True, 1.0),
        ([game([-1, 1], SWAPPED[0], 0), game([-1, 1], SWAPPED[1], 0)], True, 0.5),
    ],
)
def test_a_unit_is_scored_game_by_game_or_on_its_totals(games, by_total, score):
    assert unit_score(games, one_player=False, by_total=by_total) == score


def test_only_poker_is_scored_on_totals():
    scored = {name for name in ("poker", "flagbots", "mus", "eleusis")
              if getattr(game_api.get(name), "scored_by_total", False)}  # fmt: skip
    assert scored == {"poker"}


@pytest.mark.parametrize(
    "scores, shown",
    [
        ([1.0] * 10, "≥ +166 (95%)"),  # was "+1200 [+1200, +1200]": certainty from 10 units
        ([0.0] * 20, "≤ -287 (95%)"),
        ([0.5] * 4, "+0 [-301, +301]"),  # four ties: not "+0 [+0, +0]"
        ([1.0, 0.0, 1.0, 0.5, 1.0], "+147 [-148, +443]"),
    ],
)
def test_an_elo_interval_never_claims_certainty_from_few_units(scores, shown):
    from sparring.pipelines.arena import _elo_interval

    mean, low, high = score_interval(np.array(scores))
    assert 0.0 <= low < mean < high <= 1.0 or low < mean == high == 1.0 or low == mean == 0.0
    assert _elo_interval(mean, low, high) == shown


def test_the_wilson_interval_covers_the_true_score_about_95_percent_of_the_time():
    """Coverage, by simulation: units won with probability p, 30 units a contest."""
    rng = np.random.default_rng(7)
    for p in (0.5, 0.8, 0.95):
        covered = 0
        for _ in range(2000):
            _, low, high = score_interval(rng.binomial(1, p, 30).astype(float))
            covered += low <= p <= high
        assert 0.92 <= covered / 2000 <= 0.99, (p, covered)


def test_poker_results_in_bb_per_100_hands_with_their_interval():
    """#47 item 11: beside the score, A's chips. Unit 0: two hands, A alone in seat 0 wins 4
    then loses 2 chips (+1 chip a hand = +50 bb/100); unit 1: A holds seats 0 and 2 of three
    and nets 6 and 0 over them in one hand (+3 a seat = +150 bb/100). A pair of units a score
    cannot tell apart (both won) differs in chips."""
    from sparring.arena.contest import mean_interval, pair_win_rate
    from sparring.poker.traits import BIG_BLIND

    block = {"a": "x", "b": "y"}
    units = [
        {"unit": 1, "games": [{"returns": [4.0, -2.0, 2.0], "seating": ["A", "B", "A"]}]},
        {"unit": 0, "games": [{"returns": [4.0, -4.0], "seating": ["A", "B"]},
                              {"returns": [-2.0, 2.0], "seating": ["A", "B"]}]},
    ]  # fmt: skip
    bb100 = pair_win_rate([{"block": block, "units": units}], "x", "y", BIG_BLIND)
    assert bb100.tolist() == [50.0, 150.0]  # in unit order
    mean, low, high = mean_interval(bb100)
    assert mean == 100.0 and low < 100.0 < high
    assert high - low == pytest.approx(2 * 1.96 * np.std([50, 150], ddof=1) / np.sqrt(2))
    assert mean_interval(np.array([7.0])) == (7.0, 7.0, 7.0)  # one unit: no spread to show
