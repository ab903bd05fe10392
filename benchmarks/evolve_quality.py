"""Which knobs make a strong champion: bb/100 against each baseline table per generation.

    python benchmarks/evolve_quality.py [--quick] [--generations 200] [--seeds 3]
    python benchmarks/evolve_quality.py --configs "baselines start" "baselines + hall of fame"

For each configuration and seed the genetic algorithm runs (the pipeline's own loop,
``ga.evolution.run_generation``, evaluated in-process: one core per run, two runs at a time),
and at fixed generations its champion plays the held-out deals against each of the five
baseline tables (``ga.champion.benchmark``: bb/100 with 95% intervals). Reported per config:
the mean over seeds at each checkpoint, how many seeds beat every table (lower bound > 0) and
the first generation at which each seed did. Writes ``benchmarks/evolve_quality.png`` and prints
a markdown table for LOG.md. Finally the last champions of every config and seed play a
league with the five baselines (``pipelines.league``: both seatings, Bradley–Terry ratings),
and each config's mean rating says which makes the stronger players against each other, not
only against the baselines. The figures as JSON on the last line.
"""

from __future__ import annotations

import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import parser, report

from sparring.ga.champion import benchmark
from sparring.ga.evolution import GAParams, initial_state, run_generation
from sparring.ga.fitness import evaluate_population, play_with_trainers, trainer_seats
from sparring.poker.bots import BASELINES
from sparring.poker.deal_generation import generate_deals
from sparring.poker.preflop import load_table

HERE = Path(__file__).resolve().parent
SEATS = 10
RF, CF = 1.6, 1.1

# name -> (GAParams changes, training deals)
CONFIGS: dict[str, tuple[dict, int]] = {
    "random start": ({"trainer_start": "random"}, 200),
    "baselines start": ({"trainer_start": "baselines"}, 200),
    "baselines + hall of fame": (
        {"trainer_start": "baselines", "hall_of_fame": 8, "hall_every": 10},
        200,
    ),
}


def deals(count: int, seed: int):
    made, _ = generate_deals(0, count, SEATS, 500, seed, load_table(None), RF, CF)
    return made


def one_run(name: str, seed: int, generations: int, checkpoints: list[int], heldout: int):
    """One (config, seed): the champion's benchmark at each checkpoint, and seconds used."""
    changes, n_train = CONFIGS[name]
    params = replace(GAParams(population=64, trainer_size=SEATS - 1, seed=seed), **changes)
    train, held = deals(n_train, 1 + 100 * seed), deals(heldout, 2)
    seating: dict[int, np.ndarray] = {}

    def seats(pool: int) -> np.ndarray:
        if pool not in seating:
            seating[pool] = trainer_seats(pool, SEATS, train.deal_id, seed)
        return seating[pool]

    def evaluate(population, pool):
        return evaluate_population(
            population, pool, train.equity, train.strength, seats(len(pool)), RF, CF
        )

    def challenge(individual, trainers):
        net, _, trainer_net, _ = play_with_trainers(
            individual, trainers, train.equity, train.strength, seats(len(trainers)), RF, CF
        )
        return float(net.sum()), trainer_net

    state = initial_state(params)
    out: dict[int, list[tuple[float, float]]] = {}
    start = time.perf_counter()
    spent_benchmarking = 0.0
    while state.generation < generations:
        state = run_generation(state, params, evaluate, challenge)
        if state.generation in checkpoints:
            t = time.perf_counter()
            results = benchmark(state.champion, held.equity, held.strength, RF, CF, seed=seed)
            out[state.generation] = [(r.bb_per_100, r.ci_low) for r in results]
            spent_benchmarking += time.perf_counter() - t
    seconds = time.perf_counter() - start - spent_benchmarking
    return name, seed, out, seconds / generations, state.champion


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--generations", type=int, default=200)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--heldout", type=int, default=600)
    p.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    args = p.parse_args()
    generations = 20 if args.quick else args.generations
    seeds = 1 if args.quick else args.seeds
    checkpoints = sorted({max(1, generations * k // 8) for k in range(1, 9)})
    configs = list(args.configs)
    jobs = [(n, s) for n in configs for s in range(seeds)]
    with ProcessPoolExecutor(max_workers=2) as pool:
        done = list(
            pool.map(
                one_run,
                [n for n, _ in jobs],
                [s for _, s in jobs],
                [generations] * len(jobs),
                [checkpoints] * len(jobs),
                [args.heldout] * len(jobs),
            )
        )
    rows, figures = [], {"generations": generations, "seeds": seeds, "configs": {}}
    lines = [
        "| config | generation | " + " | ".join(BASELINES) + " | seeds beating every table |",
        "|---|---:|" + "---:|" * len(BASELINES) + "---:|",
    ]
    for name in configs:
        runs = [d for d in done if d[0] == name]
        per_gen = {}
        first_all: list[int | None] = []
        for _, _, out, _, _ in runs:
            beat = [g for g in checkpoints if all(low > 0 for _, low in out[g])]
            first_all.append(beat[0] if beat else None)
        for g in checkpoints:
            means = np.mean([[bb for bb, _ in out[g]] for _, _, out, _, _ in runs], axis=0)
            beating = sum(all(low > 0 for _, low in out[g]) for _, _, out, _, _ in runs)
            per_gen[g] = {
                "mean_bb100": dict(zip(BASELINES, means.round(1).tolist(), strict=True)),
                "seeds_beating_all": beating,
            }
            lines.append(
                f"| {name} | {g} | "
                + " | ".join(f"{m:+.1f}" for m in means)
                + f" | {beating}/{len(runs)} |"
            )
        sec_per_gen = float(np.mean([r[3] for r in runs]))
        figures["configs"][name] = {
            "per_generation": per_gen,
            "first_generation_beating_all": first_all,
            "seconds_per_generation_one_core": sec_per_gen,
        }
        final = per_gen[checkpoints[-1]]
        rows.append(
            (
                f"{name}: seeds beating all at gen {checkpoints[-1]}",
                final["seeds_beating_all"],
                f"first at {first_all}, {sec_per_gen:.2f} s/gen on one core",
            )
        )
    _plot(done, checkpoints, configs)
    print("\n".join(lines))
    league = _league(done, args.heldout)
    for name in configs:
        mine = [league[f"{name} #{s}"] for s in range(seeds)]
        figures["configs"][name]["league_rating_mean"] = float(np.mean(mine))
        rows.append((f"{name}: mean league rating", float(np.mean(mine)), f"seeds {mine}"))
    report("evolve_quality", rows, figures)


def _league(done, heldout: int) -> dict[str, float]:
    """The final champions of every run and the baselines in one league: name -> rating."""
    from sparring.champions.league import baseline_entrant, play_league
    from sparring.ga.round_robin import champion_entrant
    from sparring.runtime.ray.session import init_ray, shutdown_ray

    held = deals(heldout, 2)
    entrants = [champion_entrant(f"{n} #{s}", champ, SEATS) for n, s, _, _, champ in done]
    entrants += [baseline_entrant(b, SEATS, 0) for b in BASELINES]
    init_ray({"num_cpus": 2, "log_to_driver": False})
    try:
        with tempfile.TemporaryDirectory() as cache:
            result = play_league(
                entrants, held, "study", cache, RF, CF, 200, 0
            )
    finally:
        shutdown_ray()
    return dict(zip(result.entrants, result.ratings.rating.round(1).tolist(), strict=True))


def _plot(done, checkpoints, configs) -> None:
    from sparring.reporting.plots import plt

    fig, axes = plt.subplots(1, len(BASELINES), figsize=(4 * len(BASELINES), 3.6), sharey=True)
    for name in configs:
        runs = [d for d in done if d[0] == name]
        for t, ax in enumerate(axes):
            means = [np.mean([out[g][t][0] for _, _, out, _, _ in runs]) for g in checkpoints]
            ax.plot(checkpoints, means, marker="o", markersize=3, label=name)
            ax.set_title(f"vs {BASELINES[t]}")
            ax.set_xlabel("generation")
            ax.axhline(0.0, color="grey", lw=0.8, ls="--")
    axes[0].set_ylabel("champion bb/100 on held-out deals (mean of seeds)")
    axes[-1].legend(fontsize=7, title="dashed: break-even")
    fig.tight_layout()
    fig.savefig(
        HERE / f"evolve_quality{'' if len(configs) == len(CONFIGS) else '_hof'}.png", dpi=90
    )
    plt.close(fig)


if __name__ == "__main__":
    main()
