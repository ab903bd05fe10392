"""Preflop equity table: 169 classes x opponent counts as Ray tasks -> Parquet + MLflow.

python pipelines/equity.py                      # defaults in conf/equity.yaml
python pipelines/equity.py trials=200000 opponents=[1,9] ray=cluster tracking=server"""

from sparring.launch.app import launch

if __name__ == "__main__":
    launch(__file__, "equity", "sparring.pipelines.equity:run")
