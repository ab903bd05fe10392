"""Renamed: FlagBots' searchers are measured and matched by ``pipelines/flagbots_bench.py``.

Kept so that the old command says where the pipeline went, in one line (exit status 2).
"""

import sys

if __name__ == "__main__":
    print(
        "error: pipelines/search_bench.py was renamed: use pipelines/flagbots_bench.py "
        "(its config: conf/flagbots_bench.yaml)",
        file=sys.stderr,
    )
    sys.exit(2)
