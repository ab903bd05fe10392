"""Scheduled retraining: evolve from the registered champion, promote only a better challenger.

python pipelines/retrain.py                           # once per day (id = today's date)
python pipelines/retrain.py retrain.id=$SUBMISSION_ID ga.generations=20"""

from sparring.pipelines.retrain import run
from sparring.runtime.app import launch

if __name__ == "__main__":
    launch(__file__, "retrain", run, resumable=True)
