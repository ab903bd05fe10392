"""Compose a pipeline's real Hydra config with overrides, pointed at the session's stores."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

CONF_DIR = Path(__file__).resolve().parents[2] / "conf"


@pytest.fixture
def pipeline_config(mlflow_store, tmp_path):
    """``pipeline_config("equity", "trials=10")`` -> the composed config (tracking = session)."""

    def make(name: str, *overrides: str):
        with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
            cfg = compose(config_name=name, overrides=list(overrides))
        OmegaConf.set_struct(cfg, False)
        cfg.tracking = OmegaConf.create(dict(mlflow_store))
        return cfg

    return make
