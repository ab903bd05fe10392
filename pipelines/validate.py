"""Validate the Mus player model on synthetic players: a grid of Ray tasks, results to MLflow.

python pipelines/validate.py                                  # conf/validate.yaml
python pipelines/validate.py seeds=8 'hands=[50,100,200,400,800]' match.games=200
"""

import hydra
from omegaconf import DictConfig

from sparring.pipelines.validate import run


@hydra.main(version_base="1.3", config_path="../conf", config_name="validate")
def main(cfg: DictConfig) -> None:
    run(cfg)


if __name__ == "__main__":
    main()
