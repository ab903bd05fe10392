"""Probabilistic Eleusis benchmark: decks x H0 x scientists x seeds as Ray tasks.

python pipelines/eleusis_bench.py                      # conf/eleusis_bench.yaml
python pipelines/eleusis_bench.py seeds=100 'h0=[10,100,1000]' 'scientists=[em_greedy,oracle]'
"""

import hydra
from omegaconf import DictConfig

from sparring.pipelines.eleusis_bench import run


@hydra.main(version_base="1.3", config_path="../conf", config_name="eleusis_bench")
def main(cfg: DictConfig) -> None:
    run(cfg)


if __name__ == "__main__":
    main()
