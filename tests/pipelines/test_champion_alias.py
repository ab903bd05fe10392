"""Who moves ``@champion``: a plain evolve only names the first champion; an evolve asked to
(``registry.alias=champion``) moves it; otherwise only retrain's guarded promotion does."""

from __future__ import annotations

import numpy as np
from mlflow.tracking import MlflowClient

from sparring.champions.registry import alias_holder, log_champion, register
from sparring.pipelines.evolve import run
from sparring.runtime.tracking.runs import tracked_run
from tests.pipelines.test_evolve_pipeline import TINY

MODEL = "alias-champion"


def test_a_plain_evolve_names_the_first_champion_and_moves_no_alias_after(
    ray_session, pipeline_config, tmp_path, capsys
):
    def evolve(seed: int, *overrides: str) -> str:
        cfg = pipeline_config(
            "evolve",
            *TINY,
            f"seed={seed}",  # three different evolutions
            "ga.generations=1",
            f"deals.root={tmp_path / 'deals'}",
            f"checkpoint_root={tmp_path / 'ck'}",
            f"registry.model_name={MODEL}",
            *overrides,
        )
        return str(run(cfg)["model_version"])

    client = MlflowClient(pipeline_config("evolve").tracking.uri)
    assert evolve(3) == "1"  # a fresh model: no version holds @champion yet
    assert alias_holder(client, MODEL, "champion") == "1"
    assert evolve(4) == "2"  # an ad-hoc run: registered, @champion stays
    assert alias_holder(client, MODEL, "champion") == "1"
    assert "@champion stays on v1" in " ".join(capsys.readouterr().out.split())
    assert evolve(5, "registry.alias=champion") == "3"  # asked explicitly: moved
    assert alias_holder(client, MODEL, "champion") == "3"
    assert evolve(6, "registry.alias=staging") == "4"  # another alias moves only itself
    assert alias_holder(client, MODEL, "staging") == "4"
    assert alias_holder(client, MODEL, "champion") == "3"


def champion_runs(tmp_path, n: int) -> tuple[MlflowClient, list[str]]:
    """A fresh sqlite store with ``n`` finished evolve runs, each with a ``champion/``."""
    tracking = {"uri": f"sqlite:///{tmp_path / 'm.db'}", "artifact_root": str(tmp_path / "a")}
    client = MlflowClient(tracking["uri"])
    runs = []
    for _ in range(n):
        with tracked_run({"tracking": tracking}, "evolve") as mlrun:
            log_champion(client, mlrun.run_id, np.zeros((540, 2), np.int8), {"table_size": 6})
        runs.append(mlrun.run_id)
    return client, runs


def test_register_sets_an_alias_only_when_free_if_asked(tmp_path):
    client, runs = champion_runs(tmp_path, 3)
    assert alias_holder(client, MODEL, "champion") is None  # no such model yet
    assert register(client, MODEL, runs[0], "champion", if_free=True) == "1"
    assert register(client, MODEL, runs[1], "champion", if_free=True) == "2"
    assert alias_holder(client, MODEL, "champion") == "1"
    assert register(client, MODEL, runs[2], "champion") == "3"
    assert alias_holder(client, MODEL, "champion") == "3"
