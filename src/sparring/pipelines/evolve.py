"""The ``evolve`` pipeline: a genetic algorithm whose individuals are evaluated as Ray tasks.

Each generation the population is split into chunks; every task seats its individuals with the
trainer set over the whole training deal set (put in the object store once per run) and returns
fitness (bb/100) and used-gene masks. The driver updates the trainer set, breeds the next
generation, writes a checkpoint and logs the generation to MLflow. At the end the champion plays
the held-out deals against each baseline table and is registered in the MLflow model registry.
"""

from __future__ import annotations

import json
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import ray
from omegaconf import DictConfig

from sparring.ga import checkpoint
from sparring.ga.champion import benchmark
from sparring.ga.evolution import (
    EvolutionState,
    GAConfig,
    initial_state,
    run_generation,
    seed_with,
)
from sparring.ga.fitness import evaluate_population, play_with_trainers, trainer_seats
from sparring.ga.operators import CROSSOVERS, POLICIES
from sparring.ga.registry import log_champion, register
from sparring.pipelines.handgen import DealSetConfig, ensure_deal_set, load_deal_set
from sparring.pipelines.plots import line_plot
from sparring.pipelines.report import console, print_locations, print_table
from sparring.poker.rules import MAX_SEATS, MIN_SEATS
from sparring.runtime.config import (
    ConfigError,
    config_hash,
    lookup,
    require_choice,
    require_int,
    require_number,
)
from sparring.runtime.parallel import parallel_map
from sparring.runtime.ray_session import init_ray
from sparring.runtime.tracking import tracked_run

_LOGGED_PER_GENERATION = (
    "best_fitness",
    "mean_fitness",
    "median_fitness",
    "used_gene_fraction",
    "diversity",
    "operator_index",
    "trainer_changes",
    "hands_per_s",
    "wall_s",
)


@dataclass(frozen=True)
class EvolveJob:
    ga: GAConfig
    generations: int
    chunks: int | None
    table_size: int
    train: DealSetConfig
    heldout: DealSetConfig
    deals_root: str
    raise_factor: float
    call_factor: float
    checkpoint_root: str
    resume: bool
    registry: dict[str, Any]

    @property
    def run_hash(self) -> str:
        """What defines the evolution (not its length: a run can be resumed and extended)."""
        return config_hash(
            {"ga": asdict(self.ga), "train": asdict(self.train), "table_size": self.table_size}
        )

    @property
    def checkpoint_dir(self) -> Path:
        return Path(self.checkpoint_root) / self.run_hash


def parse_config(cfg: DictConfig | dict[str, Any]) -> EvolveJob:
    """Validate everything before any work starts; raises ConfigError naming the bad key."""
    seed = require_int(cfg, "seed", 0)
    n = require_int(cfg, "table_size", MIN_SEATS, MAX_SEATS)
    population = require_int(cfg, "ga.population", 4, 100_000)
    trainer_size = n - 1
    if lookup(cfg, "trainers.size") is not None:
        trainer_size = require_int(cfg, "trainers.size", n - 1, 10_000)
    ga = GAConfig(
        population=population,
        tournament=require_int(cfg, "ga.tournament", 1, population),
        elitism=require_int(cfg, "ga.elitism", 0, population - 1),
        p_crossover=require_number(cfg, "ga.p_crossover", 0, 1),
        p_mutation=require_number(cfg, "ga.p_mutation", 0, 1),
        mutation_genes=require_int(cfg, "ga.mutation_genes", 1, 540),
        variance=require_number(cfg, "ga.variance", 0, 1),
        crossover_policy=require_choice(cfg, "ga.crossover_policy", POLICIES),
        crossover_operator=require_choice(cfg, "ga.crossover_operator", CROSSOVERS),
        trainer_size=trainer_size,
        trainer_start=require_choice(cfg, "trainers.start", ("random", "baselines")),
        seed=seed,
    )
    chunks = None
    if lookup(cfg, "ga.chunks") is not None:
        chunks = require_int(cfg, "ga.chunks", 1, population)
    rf = require_number(cfg, "preflop.raise_factor", 0, 10, low_open=True)
    cf = require_number(cfg, "preflop.call_factor", 0, 10, low_open=True)
    trials = require_int(cfg, "deals.equity_trials", 1, 10_000_000)
    shard = require_int(cfg, "deals.shard_size", 1, 1_000_000)

    def deal_set(which: str) -> DealSetConfig:
        count = require_int(cfg, f"deals.{which}", 1, 10_000_000)
        return DealSetConfig(
            count, n, trials, require_int(cfg, f"deals.{which}_seed", 0), shard, rf, cf, None
        )

    train, heldout = deal_set("train"), deal_set("heldout")
    if train.seed == heldout.seed:
        raise ConfigError(
            "deals.heldout_seed must differ from deals.train_seed "
            "(held-out deals must not be training deals)"
        )
    return EvolveJob(
        ga=ga,
        generations=require_int(cfg, "ga.generations", 1, 1_000_000),
        chunks=chunks,
        table_size=n,
        train=train,
        heldout=heldout,
        deals_root=str(lookup(cfg, "deals.root") or "data/deals"),
        raise_factor=rf,
        call_factor=cf,
        checkpoint_root=str(cfg.get("checkpoint_root") or "data/checkpoints/evolve"),
        resume=bool(cfg.get("resume", False)),
        registry=dict(cfg.get("registry") or {}),
    )


def evaluate_chunk(
    population: np.ndarray,
    trainers: np.ndarray,
    deals: tuple,
    seats: np.ndarray,
    raise_factor: float,
    call_factor: float,
):
    """One Ray task: fitness, used masks and hands for a chunk of the population."""
    equity, strength = deals
    return evaluate_population(
        population, trainers, equity, strength, seats, raise_factor, call_factor
    )


def _log_generation(mlrun, record: dict) -> None:
    mlrun.log_metrics({k: record[k] for k in _LOGGED_PER_GENERATION}, step=record["generation"])


def run(
    cfg: DictConfig | dict[str, Any],
    seed_individual: np.ndarray | None = None,
    seed_fraction: float = 0.25,
    tags: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Run (or resume) an evolution; returns paths, the MLflow run id and the results.

    ``seed_individual`` (retraining) replaces part of the first population with it."""
    job = parse_config(cfg)
    resources = init_ray(cfg.get("ray"))
    cores = max(1, int(resources.get("CPU", 1)))
    n_chunks = job.chunks or min(job.ga.population, 2 * cores)
    with tracked_run(cfg, "evolve", tags={"run_hash": job.run_hash, **(tags or {})}) as mlrun:
        train_dir, _ = ensure_deal_set(job.train, job.deals_root)
        held_dir, _ = ensure_deal_set(job.heldout, job.deals_root)
        train, held = load_deal_set(train_dir), load_deal_set(held_dir)
        deals_ref = ray.put((train.equity, train.strength))  # once for the whole run
        seats = trainer_seats(job.ga.trainer_size, job.table_size, train.deal_id, job.ga.seed)
        rf, cf = job.raise_factor, job.call_factor

        def evaluate(population, trainers):
            parts = np.array_split(population, n_chunks)
            results = parallel_map(
                evaluate_chunk,
                parts,
                progress=False,
                shared={
                    "trainers": trainers,
                    "deals": deals_ref,
                    "seats": seats,
                    "raise_factor": rf,
                    "call_factor": cf,
                },
            )
            return (
                np.concatenate([r[0] for r in results]),
                np.concatenate([r[1] for r in results]),
                sum(r[2] for r in results),
            )

        def challenge(individual, trainers):
            net, _, trainer_net, _ = play_with_trainers(
                individual, trainers, train.equity, train.strength, seats, rf, cf
            )
            return float(net.sum()), trainer_net

        state = checkpoint.latest(job.checkpoint_dir) if job.resume else None
        if state is None:
            if job.resume:
                console.print(f"no checkpoint in {job.checkpoint_dir}: starting from generation 0")
            state = initial_state(job.ga)
            if seed_individual is not None:
                state = seed_with(state, seed_individual, seed_fraction, job.ga)
        else:
            console.print(f"resuming from generation {state.generation} ({job.checkpoint_dir})")
            for record in state.history:
                _log_generation(mlrun, record)
        start = time.perf_counter()
        while state.generation < job.generations:
            state = run_generation(state, job.ga, evaluate, challenge)
            checkpoint.save(state, job.checkpoint_dir)
            record = state.history[-1]
            _log_generation(mlrun, record)
            change = ", new trainer" if record["trainer_changes"] else ""
            console.print(
                f"gen {record['generation'] + 1}/{job.generations}: best "
                f"{record['best_fitness']:+.1f} mean {record['mean_fitness']:+.1f} bb/100, "
                f"{record['operator']}{change}",
                soft_wrap=True,
            )
        wall = time.perf_counter() - start
        results = _finish(mlrun, job, state, held, wall)
    uri = str((cfg.get("tracking") or {}).get("uri", "sqlite:///mlflow.db"))
    print_locations(
        {
            "checkpoints": job.checkpoint_dir.resolve(),
            "training deals": train_dir,
            "held-out deals": held_dir,
        },
        uri,
        mlrun.run_id,
    )
    return {"run_id": mlrun.run_id, "checkpoint_dir": job.checkpoint_dir, "state": state, **results}


def _finish(mlrun, job: EvolveJob, state: EvolutionState, held, wall: float) -> dict[str, Any]:
    """Plot, champion benchmark, artifacts and registry."""
    history = state.history
    summary = {
        "generations": state.generation,
        "champion_fitness": state.champion_fitness,
        "trainer_changes_total": len(state.changes),
    }
    if wall > 0 and history:
        run_generations = sum(1 for r in history if r["wall_s"] > 0)
        summary["generations_per_min"] = 60.0 * run_generations / max(wall, 1e-9)
    results = benchmark(
        state.champion,
        held.equity,
        held.strength,
        job.raise_factor,
        job.call_factor,
        seed=job.ga.seed,
    )
    for r in results:
        summary[f"champion_bb100_vs_{r.table}"] = r.bb_per_100
        summary[f"champion_bb100_ci_low_vs_{r.table}"] = r.ci_low
        summary[f"champion_bb100_ci_high_vs_{r.table}"] = r.ci_high
    summary["champion_bb100"] = float(np.mean([r.bb_per_100 for r in results]))
    mlrun.log_metrics(summary, step=state.generation)
    rows = [
        [r.table, f"{r.bb_per_100:+.1f}", f"[{r.ci_low:+.1f}, {r.ci_high:+.1f}]", r.deals]
        for r in results
    ]
    text = print_table(
        "Champion on held-out deals (bb/100, 95% CI)", ["table", "bb/100", "95% CI", "deals"], rows
    )
    mlrun.log_text(text, "champion_benchmark.txt")
    mlrun.log_text(json.dumps(state.changes, indent=2), "trainer_changes.json")
    with tempfile.TemporaryDirectory() as tmp:
        gens = [r["generation"] + 1 for r in history]
        plot = line_plot(
            Path(tmp) / "fitness.png",
            gens,
            {k: [r[f"{k}_fitness"] for r in history] for k in ("best", "mean", "median")},
            "Fitness per generation",
            "generation",
            "bb/100 vs trainers",
        )
        mlrun.log_artifact(plot)
    info = {
        "table_size": job.table_size,
        "raise_factor": job.raise_factor,
        "call_factor": job.call_factor,
        "fitness": state.champion_fitness,
        "generations": state.generation,
        "run_hash": job.run_hash,
        "benchmark": [asdict(r) for r in results],
    }
    log_champion(mlrun.client, mlrun.run_id, state.champion, info)
    version = None
    if job.registry.get("register", True):
        version = register(
            mlrun.client,
            job.registry.get("model_name", "sparring-holdem-champion"),
            mlrun.run_id,
            job.registry.get("alias", "champion"),
        )
        console.print(
            f"registered {job.registry.get('model_name')} version {version} "
            f"(alias {job.registry.get('alias')})"
        )
    return {"benchmark": results, "summary": summary, "model_version": version}


__all__ = ["EvolveJob", "parse_config", "run"]
