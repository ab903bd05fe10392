"""The evolution loop as pure state transitions: evaluate -> trainer update -> breed.

``run_generation`` takes the evaluation as a function, so the same loop runs serially in tests
and as Ray tasks in the pipeline. All randomness comes from one numpy Generator whose state is
part of the ``EvolutionState``: a run resumed from a checkpoint continues exactly.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace

import numpy as np

from sparring.ga.operators import (
    CROSSOVERS,
    OPERATORS,
    crossover_for_generation,
    mutate,
    random_population,
    tournament,
)
from sparring.ga.params import GAParams, TrainerStart
from sparring.ga.trainers import TrainerChange, update_trainers
from sparring.poker.bots import baseline_table
from sparring.seeding import seed_sequence

# evaluate(population, trainers) -> (fitness bb/100 (P,), used (P, 540), hands played)
Evaluate = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, int]]
# challenge(individual, trainers) -> (individual's net chips, each trainer's net chips (T,))
Challenge = Callable[[np.ndarray, np.ndarray], tuple[float, np.ndarray]]


@dataclass
class EvolutionState:
    """Everything needed to continue a run (what a checkpoint holds)."""

    generation: int  # generations completed
    population: np.ndarray  # (P, 540, 2) int8, the next population to evaluate
    trainers: np.ndarray  # (T, 540, 2) int8
    rng_state: dict
    champion: np.ndarray  # best individual of the last evaluated generation
    champion_fitness: float
    used: np.ndarray  # (P, 540) bool, used masks of the last evaluated generation
    history: list[dict] = field(default_factory=list)
    # (H, 540, 2) int8: past champions, opponents beside the trainers (the hall of fame)
    hall: np.ndarray = field(default_factory=lambda: np.zeros((0, 540, 2), np.int8))
    changes: list[dict] = field(default_factory=list)


def initial_state(cfg: GAParams) -> EvolutionState:
    """Generation 0: a random population and the starting trainer set."""
    rng = np.random.default_rng(seed_sequence(cfg.seed, "evolve"))
    population = random_population(cfg.population, rng)
    if cfg.trainer_start == "random":
        trainers = random_population(cfg.trainer_size, rng)
    else:
        trainers = baseline_table("mixed", cfg.trainer_size, seed=cfg.seed)
    return EvolutionState(
        generation=0,
        population=population,
        trainers=trainers,
        rng_state=dict(rng.bit_generator.state),
        champion=population[0].copy(),
        champion_fitness=float("nan"),
        used=np.zeros(population.shape[:2], dtype=bool),
    )


def seed_with(
    state: EvolutionState, individual: np.ndarray, fraction: float, cfg: GAParams
) -> EvolutionState:
    """Replace the last ``fraction`` of the population with ``individual``: one exact copy,
    the rest mutated copies (all genes eligible), so evolution starts from a known player."""
    rng = np.random.default_rng()
    rng.bit_generator.state = state.rng_state
    count = max(1, round(fraction * cfg.population))
    population = state.population.copy()
    everywhere = np.ones(individual.shape[0], dtype=bool)
    for k in range(count):
        i = cfg.population - 1 - k
        population[i] = (
            individual
            if k == 0
            else mutate(individual, everywhere, cfg.mutation_genes * 4, cfg.variance, rng)
        )
    return replace(state, population=population, rng_state=rng.bit_generator.state)


def diversity(population: np.ndarray) -> float:
    """Mean standard deviation of each threshold across the population, over its range 200."""
    return float(population.astype(np.float64).std(axis=0).mean() / 200.0)


def breed(
    population: np.ndarray,
    fitness: np.ndarray,
    used: np.ndarray,
    operator: str,
    cfg: GAParams,
    rng: np.random.Generator,
) -> np.ndarray:
    """The next population: the elite unchanged, then children of tournament-selected pairs,
    each crossed (one operator for the whole generation) and mutated at most once."""
    cross = OPERATORS[operator]
    order = np.argsort(-fitness, kind="stable")
    children = [population[i].copy() for i in order[: cfg.elitism]]
    while len(children) < cfg.population:
        i = tournament(fitness, cfg.tournament, rng)
        j = tournament(fitness, cfg.tournament, rng)
        a, b = population[i], population[j]
        if rng.random() < cfg.p_crossover:
            c1, c2 = cross(a, b, used[i], rng)
        else:
            c1, c2 = a.copy(), b.copy()
        # A child mutates the genes its head parent used (its own use is not known yet).
        for child, parent_used in ((c1, used[i]), (c2, used[j])):
            if rng.random() < cfg.p_mutation:
                child = mutate(child, parent_used, cfg.mutation_genes, cfg.variance, rng)
            children.append(child)
    return np.stack(children[: cfg.population])


def opponents(state: EvolutionState) -> np.ndarray:
    """Whom the population plays: the trainers, then the hall of fame."""
    if len(state.hall) == 0:
        return state.trainers
    return np.concatenate([state.trainers, state.hall])


def enter_hall(
    hall: np.ndarray, champion: np.ndarray, generation: int, cfg: GAParams
) -> np.ndarray:
    """The hall of fame after ``generation``: every ``hall_every`` generations its champion
    enters; once ``hall_of_fame`` are kept, each entry replaces the oldest (a ring), so the
    hall spans the recent past at a fixed size and cost. A function of the generation alone,
    hence the same for any number of workers."""
    if cfg.hall_of_fame == 0 or (generation + 1) % cfg.hall_every:
        return hall
    entry = (generation + 1) // cfg.hall_every - 1  # 0 for the first
    if len(hall) < cfg.hall_of_fame:
        return np.concatenate([hall, champion[None]])
    out = hall.copy()
    out[entry % cfg.hall_of_fame] = champion
    return out


TIMING_KEYS = ("hands_per_s", "evaluate_s", "wall_s")
"""The keys of a generation's record that measure time: they differ between identical runs."""


def run_generation(
    state: EvolutionState, cfg: GAParams, evaluate: Evaluate, challenge: Challenge
) -> EvolutionState:
    """Evaluate the population, let its best challenge the trainers, breed the next one."""
    start = time.perf_counter()
    rng = np.random.default_rng()
    rng.bit_generator.state = state.rng_state
    fitness, used, hands = evaluate(state.population, opponents(state))
    eval_seconds = time.perf_counter() - start
    best = int(np.argmax(fitness))
    challenger_net, trainer_net = challenge(state.population[best], state.trainers)
    trainers, change = update_trainers(
        state.trainers, state.population[best], challenger_net, trainer_net, state.generation, best
    )
    operator = crossover_for_generation(
        cfg.crossover_policy, cfg.crossover_operator, state.generation, rng
    )
    population = breed(state.population, fitness, used, operator, cfg, rng)
    record = {
        "generation": state.generation,
        "best_fitness": float(fitness[best]),
        "mean_fitness": float(fitness.mean()),
        "median_fitness": float(np.median(fitness)),
        "used_gene_fraction": float(used.mean()),
        "diversity": diversity(state.population),
        "operator": operator,
        "operator_index": CROSSOVERS.index(operator),
        "trainer_changes": 0 if change is None else 1,
        "challenger_net": float(challenger_net),
        "hands": int(hands),
        "hands_per_s": hands / eval_seconds if eval_seconds > 0 else 0.0,
        "evaluate_s": eval_seconds,  # the population's tasks; the rest is the driver's
        "wall_s": time.perf_counter() - start,
    }
    changes = state.changes + ([asdict(change)] if change is not None else [])
    hall = enter_hall(state.hall, state.population[best], state.generation, cfg)
    record["hall_of_fame"] = len(hall)
    return replace(
        state,
        hall=hall,
        generation=state.generation + 1,
        population=population,
        trainers=trainers,
        rng_state=rng.bit_generator.state,
        champion=state.population[best].copy(),
        champion_fitness=float(fitness[best]),
        used=used,
        history=[*state.history, record],
        changes=changes,
    )


__all__ = [
    "EvolutionState",
    "GAParams",
    "TrainerChange",
    "TrainerStart",
    "breed",
    "enter_hall",
    "initial_state",
    "opponents",
    "run_generation",
    "seed_with",
]
