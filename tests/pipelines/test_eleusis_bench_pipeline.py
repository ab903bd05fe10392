"""The eleusis_bench pipeline end to end on a tiny grid: real Ray, Parquet and MLflow."""

import re

import numpy as np
import pytest
from mlflow.tracking import MlflowClient

from sparring.eleusis.bench import paired_difference, play_games, run_cell
from sparring.pipelines.eleusis_bench import GAMES_SPEC, RESULTS_SPEC, games_path, run
from sparring.runtime.storage.datasets import read_table
from tests.helpers.configs import config_error

DECKS = "decks=['spike:alpha=0.8',best_ne_mode]"  # Hydra: quote a value holding '='
SCIENTISTS = "scientists=[frequency,kl_ucb,informed,oracle]"


def test_tiny_grid_matches_the_cells_played_serially(ray_session, pipeline_config, tmp_path):
    out = tmp_path / "eleusis.parquet"
    cfg = pipeline_config("eleusis_bench", DECKS, SCIENTISTS, "h0=[20]", "seeds=4",
                          "cap=20000", f"output={out}")  # fmt: skip
    result = run(cfg)
    rows = read_table(out, RESULTS_SPEC).to_pylist()
    assert len(rows) == 2 * 4
    for row in rows:  # the Ray tasks give what one process gives: results do not depend on workers
        serial = run_cell((row["deck"], row["h0"], row["scientist"]), seeds=4, cap=20000)
        assert (row["mean_guesses"], row["dnf_rate"]) == (serial.mean_guesses, serial.dnf_rate)
        assert row["oracle_expected"] == pytest.approx(serial.oracle_expected)
    games = read_table(games_path(out), GAMES_SPEC).to_pylist()
    assert len(games) == 8 * 4
    kl = [g["guesses"] for g in games if g["scientist"] == "kl_ucb" and g["deck"] == "best_ne_mode"]
    serial = play_games(("best_ne_mode", 20, "kl_ucb"), seeds=4, cap=20000)
    assert kl == serial.guesses.tolist()  # game i = seed i, as played in one process
    metrics = MlflowClient(cfg.tracking.uri).get_run(result["run_id"]).data.metrics
    assert metrics["cells"] == 8
    assert "best_ne_mode/20/informed/mean_guesses" in metrics
    # every scientist but the baseline is compared with it game by game
    baseline = play_games(("best_ne_mode", 20, "frequency"), seeds=4, cap=20000)
    mean, low, high = paired_difference(serial, baseline)
    assert metrics["best_ne_mode/20/kl_ucb/minus_baseline"] == pytest.approx(mean)
    assert mean == pytest.approx(np.mean(serial.guesses - baseline.guesses))
    assert low < mean < high or low == mean == high
    assert "best_ne_mode/20/frequency/minus_baseline" not in metrics
    artifacts = {a.path for a in MlflowClient(cfg.tracking.uri).list_artifacts(result["run_id"])}
    assert {"guesses_vs_oracle.png", "summary.txt", "data"} <= artifacts


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (("decks=['zipf:s=2']", SCIENTISTS), "decks=zipf:s=2 .*draws with rng.permutation"),
        (("decks=['spike:beta=1']",), "spike takes alpha, not 'beta'"),
        (("scientists=[genius]",), "unknown scientist 'genius'"),
        (("scientists=kl_ucb",), "scientists=kl_ucb is not allowed"),
        (("seeds=0",), "seeds=0 is not allowed"),
    ],
)
def test_bad_configs_are_refused_before_any_work(overrides, message):
    assert re.search(message, config_error("eleusis_bench", *overrides))


def test_scientist_params_fill_the_specs_that_name_none(pipeline_config):
    job = pipeline_config(
        "eleusis_bench",
        "scientists=[kl_ucb,'kl_ucb:c=0.3',dirichlet_gibbs,frequency,oracle]",
        "params.kl_ucb_c=0.7",
        "params.frequency_reset=20",
    )
    assert job.played() == [
        "kl_ucb:c=0.7",
        "kl_ucb:c=0.3",
        "dirichlet_gibbs",
        "frequency:reset=20",
        "oracle",
    ]


def test_a_scientist_param_out_of_range_is_refused():
    from tests.helpers.configs import config_error

    line = config_error("eleusis_bench", "params.kl_ucb_c=-1")
    assert line.startswith("params.kl_ucb_c=-1 is not allowed: expected a number in (0, inf)")


def test_oracle_ratios_average_finite_cells_per_scientist():
    """Known values: two decks for kl_ucb (1.5 and 2.5 -> 2.0), one for frequency (3.0, the
    other deck cannot finish), the oracle left out; the overall mean is over scientists."""
    from sparring.eleusis.bench import CellResult
    from sparring.pipelines.eleusis_bench import oracle_ratios

    def cell(deck, scientist, guesses, oracle):
        return CellResult(deck, 100, scientist, 10, guesses, 1.0, 0.0, oracle, 0.0, 0.0, 1.0, 0.0)

    inf = float("inf")
    results = [
        cell("a", "kl_ucb:c=0.7", 150.0, 100.0),
        cell("b", "kl_ucb:c=0.7", 125.0, 50.0),
        cell("a", "frequency", 300.0, 100.0),
        cell("c", "frequency", 999.0, inf),
        cell("a", "oracle", 90.0, 100.0),
    ]
    ratios = oracle_ratios(results)
    assert ratios == {
        "guesses_over_oracle/kl_ucb": 2.0,
        "guesses_over_oracle/frequency": 3.0,
        "guesses_over_oracle": 2.5,
    }
