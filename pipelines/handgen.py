"""Deal sets with precomputed equities: shards as Ray tasks -> Parquet + MLflow.

python pipelines/handgen.py                                  # conf/handgen.yaml
python pipelines/handgen.py deals=5000 table_size=6 seed=2   # a held-out set: another seed
"""

import hydra
from omegaconf import DictConfig

from sparring.pipelines.handgen import run


@hydra.main(version_base="1.3", config_path="../conf", config_name="handgen")
def main(cfg: DictConfig) -> None:
    run(cfg)


if __name__ == "__main__":
    main()
