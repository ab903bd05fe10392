"""A hyperparameter search over a pipeline: Ray Tune + Optuna (TPE) + ASHA, trials in MLflow.

python pipelines/tune.py search=ga_tpe trials=24 concurrency=2     # conf/tune.yaml
python pipelines/tune.py search=ga_tpe search.algorithm=random seed=1
python pipelines/tune.py search=ga_tpe search_id=<id> resume=true  # continue a killed search"""

from sparring.pipelines.tune import run
from sparring.runtime.app import launch

if __name__ == "__main__":
    launch(__file__, "tune", run)
