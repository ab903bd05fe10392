"""Scheduled retraining: evolve from the registered champion, promote only a better challenger.

python pipelines/retrain.py                           # once per day (id = today's date)
python pipelines/retrain.py retrain.id=$SUBMISSION_ID ga.generations=20
"""

import hydra
from omegaconf import DictConfig

from sparring.pipelines.retrain import run


@hydra.main(version_base="1.3", config_path="../conf", config_name="retrain")
def main(cfg: DictConfig) -> None:
    run(cfg)


if __name__ == "__main__":
    main()
