"""Evolve hold'em players against a co-evolving trainer set: Ray tasks per generation.

python pipelines/evolve.py                                    # conf/evolve.yaml
python pipelines/evolve.py ga.population=64 ga.generations=30 deals.train=400
python pipelines/evolve.py resume=true                        # continue a killed run"""

from sparring.launch.app import launch

if __name__ == "__main__":
    launch(__file__, "evolve", "sparring.pipelines.evolve:run")
