"""A hyperparameter search over a pipeline: Ray Tune + Optuna (TPE) + ASHA, trials in MLflow.

python pipelines/tune.py hparams_search=ga_tpe trials=24 concurrency=2     # conf/tune.yaml
python pipelines/tune.py hparams_search=ga_tpe hparams_search.algorithm=random seed=1
python pipelines/tune.py hparams_search=ga_tpe search_id=<id> resume=true  # continue a search"""

from sparring.launch.app import launch

if __name__ == "__main__":
    launch(__file__, "tune", "sparring.pipelines.tune:run")
