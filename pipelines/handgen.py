"""Deal sets with precomputed equities: shards as Ray tasks -> Parquet + MLflow.

python pipelines/handgen.py                                  # conf/handgen.yaml
python pipelines/handgen.py deals=5000 table_size=6 seed=2   # a held-out set: another seed"""

from sparring.launch.app import launch

if __name__ == "__main__":
    launch(__file__, "handgen", "sparring.pipelines.handgen:run")
