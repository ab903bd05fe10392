"""The Eleusis benchmark's rows, metrics, summary and plot bars from small constructed cells."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from sparring.eleusis.bench import (
    GAMES_SPEC,
    RESULTS_SPEC,
    SUMMARY_COLUMNS,
    CellResult,
    Games,
    cell_metrics,
    game_rows,
    metric_name,
    oracle_ratios,
    ratios_to_oracle,
    summary_rows,
)

INF = float("inf")
NAN = float("nan")


def cell(deck, scientist, guesses, oracle, h0=20, regret=0.0, pseudo=NAN, stderr=1.0):
    return CellResult(
        deck, h0, scientist, 4, guesses, stderr, 0.25, oracle, regret, pseudo, 1234.5, 0.1
    )


def games(guesses, finished, oracle, first_seed=0):
    n = len(guesses)
    return Games(
        np.asarray(guesses, dtype=np.int64),
        np.asarray(finished, dtype=bool),
        np.arange(n, dtype=np.float64) / 2,
        np.full(n, oracle),
        np.full(n, 0.1),
        1.0,
        first_seed,
    )


def test_game_rows_are_every_game_cell_by_cell_seed_by_seed():
    cells = [("a", 20, "frequency"), ("b", 40, "oracle")]
    rows = game_rows(cells, [games([3, 5], [True, False], 4.0), games([7], [True], INF, 9)])
    assert rows == [
        {"deck": "a", "h0": 20, "scientist": "frequency", "seed": 0, "guesses": 3,
         "finished": True, "pseudo_regret": 0.0, "oracle_expected": 4.0},
        {"deck": "a", "h0": 20, "scientist": "frequency", "seed": 1, "guesses": 5,
         "finished": False, "pseudo_regret": 0.5, "oracle_expected": 4.0},
        {"deck": "b", "h0": 40, "scientist": "oracle", "seed": 9, "guesses": 7,
         "finished": True, "pseudo_regret": 0.0, "oracle_expected": INF},
    ]  # fmt: skip
    assert pa.Table.from_pylist(rows, schema=GAMES_SPEC.schema).to_pylist() == rows
    result = cell("a", "frequency", 4.0, 4.0).as_row()
    assert pa.Table.from_pylist([result], schema=RESULTS_SPEC.schema).num_rows == 1


def test_metric_names_replace_what_mlflow_refuses():
    assert metric_name("spike:alpha=0.8", 20, "kl_ucb:c=0.7") == "spike_alpha_0.8/20/kl_ucb_c_0.7"
    assert metric_name("a b", "x-y/z") == "a b/x-y/z"


def test_cell_metrics_keep_finite_regrets_and_the_paired_difference():
    results = [
        cell("a", "frequency", 10.0, 8.0, regret=2.0),
        cell("b", "kl_ucb", 7.0, INF, regret=NAN, pseudo=3.5),
    ]
    paired = {("b", 20, "kl_ucb"): (-1.5, -2.0, -1.0)}
    assert cell_metrics(results, paired) == {
        "a/20/frequency/mean_guesses": 10.0,
        "a/20/frequency/dnf_rate": 0.25,
        "a/20/frequency/guesses_per_s": 1234.5,
        "a/20/frequency/regret": 2.0,
        "b/20/kl_ucb/mean_guesses": 7.0,
        "b/20/kl_ucb/dnf_rate": 0.25,
        "b/20/kl_ucb/guesses_per_s": 1234.5,
        "b/20/kl_ucb/pseudo_regret": 3.5,
        "b/20/kl_ucb/minus_baseline": -1.5,
        "b/20/kl_ucb/minus_baseline_low": -2.0,
        "b/20/kl_ucb/minus_baseline_high": -1.0,
    }


def test_oracle_ratios_leave_out_the_references_and_decks_without_a_finite_oracle():
    """dirichlet_gibbs over two decks (4.0 and 2.0 -> 3.0, its specs' params dropped), kl_ucb
    on one (1.0; 0 and inf are no yardstick); oracle and optimal are the yardstick itself."""
    results = [
        cell("a", "dirichlet_gibbs", 40.0, 10.0),
        cell("b", "dirichlet_gibbs:prior=2", 10.0, 5.0),
        cell("a", "kl_ucb", 10.0, 10.0),
        cell("z", "kl_ucb", 10.0, 0.0),
        cell("c", "kl_ucb", 10.0, INF),
        cell("a", "optimal", 9.0, 10.0),
        cell("a", "oracle", 11.0, 10.0),
    ]
    assert oracle_ratios(results) == {
        "guesses_over_oracle/dirichlet_gibbs": 3.0,
        "guesses_over_oracle/kl_ucb": 1.0,
        "guesses_over_oracle": 2.0,
    }
    assert oracle_ratios([cell("a", "optimal", 1.0, 1.0)]) == {}


def test_summary_rows_format_each_cell_and_its_paired_difference():
    results = [
        cell("a", "frequency", 1234.56, 207.66, stderr=12.34),
        cell("a", "kl_ucb", 26.2, INF),
    ]
    rows = summary_rows(results, {("a", 20, "kl_ucb"): (-1500.0, -1600.25, 13.5)})
    assert len(SUMMARY_COLUMNS) == 8 and SUMMARY_COLUMNS[-1] == "- frequency (95%)"
    # DNF as a count of the cell's seeds (four here): a rate of 0.001 printed as 0.00
    assert rows == [
        ["a", 20, "frequency", "1,234.6 ± 12.3", "207.7", "1/4", "1,234", ""],
        ["a", 20, "kl_ucb", "26.2 ± 1.0", "inf", "1/4", "1,234",
         "-1,500.0 [-1,600.2, +13.5]"],
    ]  # fmt: skip


def test_ratios_to_oracle_group_by_deck_and_h0_with_zero_where_a_deck_cannot_finish():
    results = [
        cell("a", "frequency", 30.0, 10.0, h0=20),
        cell("a", "oracle", 9.0, 10.0, h0=20),
        cell("a", "frequency", 40.0, 20.0, h0=40),
        cell("a", "oracle", 20.0, 20.0, h0=40),
        cell("b", "frequency", 50.0, INF, h0=20),
        cell("b", "oracle", 60.0, INF, h0=20),
        cell("b", "frequency", 5.0, 4.0, h0=40),
        cell("b", "oracle", 4.0, 4.0, h0=40),
    ]
    labels, ratio = ratios_to_oracle(results, ["a", "b"], [20, 40], ["frequency", "oracle"])
    assert labels == ["a H0=20", "a H0=40", "b H0=20", "b H0=40"]
    assert ratio == {"frequency": [3.0, 2.0, 0.0, 1.25], "oracle": [0.9, 1.0, 0.0, 1.0]}
