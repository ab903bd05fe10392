"""Validate the Mus player model on synthetic players: a grid of Ray tasks, results to MLflow.

python pipelines/validate.py                                  # conf/validate.yaml
python pipelines/validate.py seeds=8 'hands=[50,100,200,400,800]' match.games=200"""

from sparring.launch.app import launch

if __name__ == "__main__":
    launch(__file__, "validate", "sparring.pipelines.validate:run")
