"""Preflop equity table: 169 classes x opponent counts as Ray tasks -> Parquet + MLflow.

python pipelines/equity.py                      # defaults in conf/equity.yaml
python pipelines/equity.py trials=200000 opponents=[1,9] ray=cluster tracking=server
"""

import hydra
from omegaconf import DictConfig

from sparring.pipelines.equity import run


@hydra.main(version_base="1.3", config_path="../conf", config_name="equity")
def main(cfg: DictConfig) -> None:
    run(cfg)


if __name__ == "__main__":
    main()
