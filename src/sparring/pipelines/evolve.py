"""The ``evolve`` pipeline: a genetic algorithm whose individuals are evaluated as Ray tasks.

Each generation the population is split into chunks; every task seats its individuals with the
trainer set over the whole training deal set (put in the object store once per run) and returns
fitness (bb/100) and used-gene masks. The driver updates the trainer set, breeds the next
generation, writes a checkpoint and logs the generation to MLflow. At the end the champion plays
the held-out deals against each baseline table and is registered in the MLflow model registry.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from functools import partial
from typing import Any

import numpy as np
import ray

from sparring.champions.registry import alias_holder, log_champion, register
from sparring.config.evolve import EvolveConfig, RegistryConfig
from sparring.frame.deal_set_store import ensure_deal_set, open_deal_set
from sparring.frame.session import Session, pipeline_session
from sparring.ga import checkpoint
from sparring.ga.champion import benchmark
from sparring.ga.evolution import EvolutionState, initial_state, run_generation, seed_with
from sparring.ga.fitness import evaluate_chunk, play_with_trainers, trainer_seats
from sparring.reporting.console import console
from sparring.reporting.plots import line_plot
from sparring.runtime.progress import report_step
from sparring.runtime.ray.parallel import parallel_map
from sparring.runtime.ray.session import init_ray

_LOGGED_PER_GENERATION = (
    "best_fitness",
    "mean_fitness",
    "median_fitness",
    "used_gene_fraction",
    "diversity",
    "operator_index",
    "trainer_changes",
    "hands_per_s",
    "evaluate_s",
    "wall_s",
)


def _log_generation(mlrun, record: dict) -> None:
    # (a record from an older checkpoint may lack a newer key)
    logged = {k: record[k] for k in _LOGGED_PER_GENERATION if k in record}
    mlrun.log_metrics(logged, step=record["generation"])


class _Evaluation:
    """How the loop evaluates: a population in chunks as Ray tasks, and one individual against
    the trainers on the driver (both over the training deals, seated per opponent pool size:
    the hall of fame grows)."""

    def __init__(self, job: EvolveConfig, train, n_chunks: int) -> None:
        self.job, self.train, self.n_chunks = job, train, n_chunks
        self.deals_ref = ray.put((train.equity, train.strength))  # once for the whole run
        self.seating: dict[int, np.ndarray] = {}
        self.factors = (job.preflop.raise_factor, job.preflop.call_factor)

    def seats_for(self, pool: int) -> np.ndarray:
        if pool not in self.seating:
            self.seating[pool] = trainer_seats(
                pool, self.job.table_size, self.train.deal_id, self.job.seed
            )
        return self.seating[pool]

    def evaluate(self, population, trainers):
        rf, cf = self.factors
        results = parallel_map(
            evaluate_chunk,
            np.array_split(population, self.n_chunks),
            progress=False,
            shared={
                "trainers": trainers,
                "deals": self.deals_ref,
                "seats": self.seats_for(len(trainers)),
                "raise_factor": rf,
                "call_factor": cf,
            },
        )
        return (
            np.concatenate([r[0] for r in results]),
            np.concatenate([r[1] for r in results]),
            sum(r[2] for r in results),
        )

    def challenge(self, individual, trainers):
        net, _, trainer_net, _ = play_with_trainers(
            individual,
            trainers,
            self.train.equity,
            self.train.strength,
            self.seats_for(len(trainers)),
            *self.factors,
        )
        return float(net.sum()), trainer_net


def run(
    job: EvolveConfig,
    seed_individual: np.ndarray | None = None,
    seed_fraction: float = 0.25,
    tags: dict[str, str] | None = None,
    run_name: str | None = None,
    role: str = "champion",
) -> dict[str, Any]:
    """Run (or resume) an evolution; returns paths, the MLflow run id and the results
    (``metrics``: ``champion_bb100`` and its value against each baseline table, ...).

    ``seed_individual`` (retraining) replaces part of the first population with it; ``role``
    is what the run's best individual is to the reader, in the title of its held-out table
    (retraining's: ``challenger``)."""
    params = job.params
    tags = {"run_hash": job.run_hash, **(tags or {})}
    with pipeline_session(job, "evolve", tags=tags, run_name=run_name) as session:
        session.output("checkpoints", job.checkpoint_dir)
        job.checkpoint_dir.check_writable()  # one line now, not after the first generation
        train, held = _deal_sets(session, job)
        n_chunks = job.ga.chunks or min(job.ga.population, 2 * session.cores)
        evaluation = _Evaluation(job, train, n_chunks)
        state = _start(session, job, seed_individual, seed_fraction)
        first = state.generation  # a resumed run's rate counts only the generations it ran
        start = time.perf_counter()
        while state.generation < job.ga.generations:
            state = run_generation(state, params, evaluation.evaluate, evaluation.challenge)
            checkpoint.save(state, job.checkpoint_dir, made_by=job.run_hash)
            record = state.history[-1]
            _log_generation(session.run, record)
            # a search's scheduler reads the objective per generation (computed only then)
            report_step(
                state.generation,
                job.ga.generations,
                partial(champion_metrics, state.champion, held, job),
            )
            _print_generation(record, job.ga.generations)
        ran = (state.generation - first, time.perf_counter() - start)
        results = _finish(session, job, state, held, ran, role)
    return session.results(
        results["summary"], checkpoint_dir=job.checkpoint_dir, state=state, **results
    )


def _deal_sets(session: Session, job: EvolveConfig):
    """The training and held-out deal sets: made where missing, loaded, logged as inputs."""
    loaded = []
    for name, label in (("train", "training deals"), ("heldout", "held-out deals")):
        root = session.locate(job.deals.root)
        directory, deals = open_deal_set(session.run, job.deal_set(name), root, name)
        session.output(label, directory)
        loaded.append(deals)
    return loaded


def _start(session: Session, job: EvolveConfig, seed_individual, seed_fraction) -> EvolutionState:
    """The state the loop starts from: the newest checkpoint when resuming (its history logged
    again in the new run), else generation 0, seeded with ``seed_individual`` if given."""
    state = (
        checkpoint.latest(job.checkpoint_dir, _say_whole, made_by=job.run_hash)
        if job.resume
        else None
    )
    if state is not None:
        console.print(f"resuming from generation {state.generation} ({job.checkpoint_dir})")
        for record in state.history:
            _log_generation(session.run, record)
        return state
    if job.resume:
        console.print(f"no checkpoint in {job.checkpoint_dir}: starting from generation 0")
    state = initial_state(job.params)
    if seed_individual is not None:
        state = seed_with(state, seed_individual, seed_fraction, job.params)
    return state


def _say_whole(line: str) -> None:
    """One line that is never wrapped (it ends in a path, which a wrap would break)."""
    console.print(line, soft_wrap=True, markup=False, highlight=False)


def _print_generation(record: dict, generations: int) -> None:
    change = ", new trainer" if record["trainer_changes"] else ""
    console.print(
        f"gen {record['generation'] + 1}/{generations}: best "
        f"{record['best_fitness']:+.1f} mean {record['mean_fitness']:+.1f} bb/100, "
        f"{record['operator']}{change}",
        soft_wrap=True,
    )


def prepare(job: EvolveConfig) -> None:
    """Generate the deal sets once before many runs share them (a search's trials)."""
    init_ray(job.ray)
    for name in ("train", "heldout"):
        ensure_deal_set(job.deal_set(name), job.storage.locate(job.deals.root))


def steps(job: EvolveConfig) -> int:
    """How many steps ``run`` reports (``report_step``): one per generation."""
    return job.ga.generations


def champion_metrics(champion: np.ndarray, held, job: EvolveConfig) -> dict[str, float]:
    """The champion's held-out numbers: bb/100 and its 95% CI against each baseline table, and
    ``champion_bb100``, their mean (the same numbers the finished run logs)."""
    return _benchmark_metrics(_benchmark(champion, held, job))


def _benchmark(champion: np.ndarray, held, job: EvolveConfig):
    rf, cf = job.preflop.raise_factor, job.preflop.call_factor
    return benchmark(champion, held.equity, held.strength, rf, cf, seed=job.seed)


def _benchmark_metrics(results) -> dict[str, float]:
    metrics = {}
    for r in results:
        metrics[f"champion_bb100_vs_{r.table}"] = r.bb_per_100
        metrics[f"champion_bb100_ci_low_vs_{r.table}"] = r.ci_low
        metrics[f"champion_bb100_ci_high_vs_{r.table}"] = r.ci_high
    metrics["champion_bb100"] = float(np.mean([r.bb_per_100 for r in results]))
    return metrics


def _finish(
    session: Session,
    job: EvolveConfig,
    state: EvolutionState,
    held,
    ran: tuple[int, float],
    role: str = "champion",
) -> dict[str, Any]:
    """Plot, champion benchmark, artifacts and registry; ``ran``: the generations this run
    played and its wall seconds (a resumed run's rate leaves out the checkpoint's)."""
    history = state.history
    summary = {
        "generations": state.generation,
        "champion_fitness": state.champion_fitness,
        "trainer_changes_total": len(state.changes),
    }
    generations, wall = ran
    if generations > 0 and wall > 0:  # none played (resumed at the end): no rate to give
        summary["generations_per_min"] = 60.0 * generations / wall
    results = _benchmark(state.champion, held, job)
    summary.update(_benchmark_metrics(results))
    mlrun = session.run
    mlrun.log_metrics(summary, step=state.generation)
    rows = [
        [r.table, f"{r.bb_per_100:+.1f}", f"[{r.ci_low:+.1f}, {r.ci_high:+.1f}]", r.deals]
        for r in results
    ]
    session.table(
        f"{role.capitalize()} on held-out deals (bb/100, 95% CI)",
        ["table", "bb/100", "95% CI", "deals"],
        rows,
        artifact="champion_benchmark.txt",
    )
    mlrun.log_text(json.dumps(state.changes, indent=2), "trainer_changes.json")
    session.log_plot(
        lambda directory: line_plot(
            directory / "fitness.png",
            [r["generation"] + 1 for r in history],
            {k: [r[f"{k}_fitness"] for r in history] for k in ("best", "mean", "median")},
            "Fitness per generation",
            "generation",
            "bb/100 vs trainers",
        )
    )
    info = {
        "table_size": job.table_size,
        "raise_factor": job.preflop.raise_factor,
        "call_factor": job.preflop.call_factor,
        "fitness": state.champion_fitness,
        "generations": state.generation,
        "run_hash": job.run_hash,
        "benchmark": [asdict(r) for r in results],
    }
    mlrun.outbox.close()  # what the run kept is recorded before the registry points at it
    log_champion(mlrun.client, mlrun.run_id, state.champion, info)
    version = None
    if job.registry.register:
        version = _register(mlrun.client, job.registry, mlrun.run_id)
    return {"benchmark": results, "summary": summary, "model_version": version}


def _register(client, registry: RegistryConfig, run_id: str) -> str:
    """Register the run's champion; move ``registry.alias`` when it is named, else set
    ``@champion`` only when no version holds it (retraining alone replaces a champion)."""
    alias, name = registry.champion_alias, registry.model_name
    version = register(client, name, run_id, alias, if_free=registry.alias is None)
    holder = alias_holder(client, name, alias)
    if holder == version:
        console.print(f"registered {name} version {version} (@{alias})")
    else:
        console.print(
            f"registered {name} version {version} (no alias: @{alias} stays on v{holder}; "
            f"pipelines/retrain.py promotes after a test, registry.alias={alias} moves it)",
            soft_wrap=True,
        )
    return version


__all__ = ["champion_metrics", "prepare", "run", "steps"]
