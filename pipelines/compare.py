"""Compare the runs of an MLflow experiment (params that differ, metrics, a plot).

python pipelines/compare.py experiment=evolve metric=champion_bb100
python pipelines/compare.py experiment=equity metric=trials_per_s "filter=params.trials = '4000'"
"""

import hydra
from omegaconf import DictConfig

from sparring.pipelines.compare import run


@hydra.main(version_base="1.3", config_path="../conf", config_name="compare")
def main(cfg: DictConfig) -> None:
    run(cfg)


if __name__ == "__main__":
    main()
