"""Evolution speed with 1 and 2 Ray workers, and the champion's bb/100 per baseline table.

    python benchmarks/evolve.py [--quick]

Runs the real evolve pipeline (embedded Ray with 2 CPUs, a throw-away MLflow store) twice on
the same configuration: once as one task per generation (one worker busy) and once split into
4 tasks (both workers busy). Both runs produce identical populations; the ratio of their speeds
is the parallel speed-up.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import parser, report
from hydra import compose, initialize_config_dir

from sparring.pipelines.evolve import run
from sparring.runtime.ray.session import init_ray, shutdown_ray

CONF = str(Path(__file__).resolve().parent.parent / "conf")


def main() -> None:
    args = parser(__doc__).parse_args()
    generations = 3 if args.quick else 6
    population = 16 if args.quick else 32
    train = 60 if args.quick else 150
    init_ray({"num_cpus": 2, "log_to_driver": False})
    rows, figures = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        common = [
            "table_size=10",
            f"ga.population={population}",
            f"ga.generations={generations}",
            f"deals.train={train}",
            "deals.heldout=300",
            "deals.equity_trials=300",
            f"deals.root={tmp}/deals",
            "registry.register=false",
            f"tracking.uri=sqlite:///{tmp}/mlflow.db",
            f"tracking.artifact_root={tmp}/art",
        ]
        speeds = {}
        for workers, chunks in ((1, 1), (2, 4)):
            with initialize_config_dir(config_dir=CONF, version_base="1.3"):
                cfg = compose(
                    "evolve", [*common, f"ga.chunks={chunks}", f"checkpoint_root={tmp}/ck{workers}"]
                )
            out = run(cfg)  # the deal sets are made by the first run: time generations only
            history = out["state"].history
            hands = sum(r["hands"] for r in history)
            eval_s = sum(r["hands"] / r["hands_per_s"] for r in history)
            loop_s = sum(r["wall_s"] for r in history)
            speeds[workers] = (generations / loop_s * 60, hands / eval_s)
        shutdown_ray()
    (g1, h1), (g2, h2) = speeds[1], speeds[2]
    rows = [
        ("generations/min, 1 worker", g1, ""),
        ("generations/min, 2 workers", g2, f"speed-up {g2 / g1:.2f}x"),
        ("evaluation hands/s, 1 worker", h1, ""),
        ("evaluation hands/s, 2 workers", h2, f"speed-up {h2 / h1:.2f}x"),
    ]
    for r in out["benchmark"]:
        rows.append(
            (
                f"champion vs {r.table} (bb/100)",
                r.bb_per_100,
                f"95% CI [{r.ci_low:+.1f}, {r.ci_high:+.1f}]",
            )
        )
        figures[f"champion_bb100_vs_{r.table}"] = round(r.bb_per_100, 2)
    figures.update(
        {
            "generations_per_min_1_worker": round(g1, 2),
            "generations_per_min_2_workers": round(g2, 2),
            "hands_per_s_1_worker": round(h1),
            "hands_per_s_2_workers": round(h2),
            "speedup_generations": round(g2 / g1, 2),
            "speedup_hands": round(h2 / h1, 2),
            "population": population,
            "generations": generations,
            "train_deals": train,
            "quick": args.quick,
        }
    )
    report("evolve (10 seats)", rows, figures)


if __name__ == "__main__":
    main()
