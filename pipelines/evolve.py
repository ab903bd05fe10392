"""Evolve hold'em players against a co-evolving trainer set: Ray tasks per generation.

python pipelines/evolve.py                                    # conf/evolve.yaml
python pipelines/evolve.py ga.population=64 ga.generations=30 deals.train=400
python pipelines/evolve.py resume=true                        # continue a killed run
"""

import hydra
from omegaconf import DictConfig

from sparring.pipelines.evolve import run


@hydra.main(version_base="1.3", config_path="../conf", config_name="evolve")
def main(cfg: DictConfig) -> None:
    run(cfg)


if __name__ == "__main__":
    main()
