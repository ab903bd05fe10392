"""FlagBots search benchmark: node counts, depth in budget, round-robin Elo as Ray tasks.

python pipelines/flagbots_bench.py                           # conf/flagbots_bench.yaml
python pipelines/flagbots_bench.py depths=[1,2,3,4,5] match.seeds=10"""

from sparring.launch.app import launch

if __name__ == "__main__":
    launch(__file__, "flagbots_bench", "sparring.pipelines.flagbots_bench:run")
