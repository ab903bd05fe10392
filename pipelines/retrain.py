"""Scheduled retraining: evolve from the registered champion, promote only a better challenger.

python pipelines/retrain.py                           # once per day (id = today's date)
python pipelines/retrain.py retrain.id=$SUBMISSION_ID ga.generations=20

Exit status: 0 promoted, 10 kept, 1 failed, 2 refused before any work (bad input, or the id is
held by a running retrain)."""

from sparring.launch.app import launch

if __name__ == "__main__":
    launch(__file__, "retrain", "sparring.pipelines.retrain:run")
