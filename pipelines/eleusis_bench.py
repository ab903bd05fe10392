"""Probabilistic Eleusis benchmark: decks x H0 x scientists x seeds as Ray tasks.

python pipelines/eleusis_bench.py                      # conf/eleusis_bench.yaml
python pipelines/eleusis_bench.py seeds=100 'h0=[10,100,1000]' 'scientists=[em_greedy,oracle]'"""

from sparring.launch.app import launch

if __name__ == "__main__":
    launch(__file__, "eleusis_bench", "sparring.pipelines.eleusis_bench:run")
