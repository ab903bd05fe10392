"""Compare the runs of an MLflow experiment (params that differ, metrics, a plot).

python pipelines/compare.py experiment=evolve metric=champion_bb100
python pipelines/compare.py experiment=equity metric=trials_per_s "filter=params.trials = '4000'"
"""

from sparring.launch.app import launch

if __name__ == "__main__":
    launch(__file__, "compare", "sparring.pipelines.compare:run")
