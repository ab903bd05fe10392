"""FlagBots search benchmark: node counts, depth in budget, round-robin Elo as Ray tasks.

python pipelines/search_bench.py                           # conf/search_bench.yaml
python pipelines/search_bench.py depths=[1,2,3,4,5] match.seeds=10
"""

import hydra
from omegaconf import DictConfig

from sparring.pipelines.search_bench import run


@hydra.main(version_base="1.3", config_path="../conf", config_name="search_bench")
def main(cfg: DictConfig) -> None:
    run(cfg)


if __name__ == "__main__":
    main()
