"""The genetic algorithm's parameters, declared once: type, default and allowed values.

``GAParams`` is what the evolution loop takes; it checks itself when built and raises
``ConfigError`` naming the field. The pipeline's schema (``sparring.config.evolve``) lays the
same parameters out as the YAML does (``ga.*``, ``trainers.*``, ``seed``): its fields take their
defaults from ``GAParams`` and its ``__post_init__`` runs the checks below under its own key
names, and ``EvolveConfig.params`` builds ``GAParams`` field by field from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from sparring.ga.operators import CrossoverOperator, CrossoverPolicy
from sparring.poker.catalog import MIN_SEATS, N_GENES
from sparring.runtime.checks import choice, integer, number, probability


class TrainerStart(StrEnum):
    """Where the trainer set starts: random players, or a mixed table of the baselines."""

    random = "random"
    baselines = "baselines"


@dataclass(frozen=True)
class GAParams:
    """Settings of the algorithm; checked (and numbers made floats) when built."""

    population: int = 64
    tournament: int = 3
    elitism: int = 2
    p_crossover: float = 0.7
    p_mutation: float = 0.3
    mutation_genes: int = 10  # used genes moved per mutation
    variance: float = 0.1  # thresholds move by up to variance x 200
    crossover_policy: CrossoverPolicy = CrossoverPolicy.cycle
    crossover_operator: CrossoverOperator = CrossoverOperator.half_individual  # when fixed
    trainer_size: int = 9
    trainer_start: TrainerStart = TrainerStart.random
    hall_of_fame: int = 0  # past champions kept as opponents (0 = none)
    hall_every: int = 10  # generations between two entries
    seed: int = 0

    def __post_init__(self) -> None:
        checked = {
            **check_breeding(self),
            "trainer_size": check_trainer_size("trainer_size", self.trainer_size),
            "trainer_start": choice("trainer_start", self.trainer_start, TrainerStart),
            **check_hall(self),
            "seed": check_seed("seed", self.seed),
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)


def check_breeding(settings: Any) -> dict[str, Any]:
    """The breeding parameters of ``settings`` (``GAParams`` or the ``ga.*`` schema: the same
    names), checked in turn; their normalised values by name."""
    population = integer("population", settings.population, 4, 100_000)
    return {
        "population": population,
        "tournament": integer("tournament", settings.tournament, 1, population),
        "elitism": integer("elitism", settings.elitism, 0, population - 1),
        "p_crossover": probability("p_crossover", settings.p_crossover),
        "p_mutation": probability("p_mutation", settings.p_mutation),
        "mutation_genes": integer("mutation_genes", settings.mutation_genes, 1, N_GENES),
        "variance": number("variance", settings.variance, 0, 1),
        "crossover_policy": choice("crossover_policy", settings.crossover_policy, CrossoverPolicy),
        "crossover_operator": choice(
            "crossover_operator", settings.crossover_operator, CrossoverOperator
        ),
    }


def check_trainer_size(key: str, size: Any) -> int:
    """How many trainers: at least one table's opponents (more are sampled per deal)."""
    return integer(key, size, MIN_SEATS - 1, 10_000)


def check_hall(settings: Any) -> dict[str, int]:
    """``hall_of_fame`` and ``hall_every`` of ``settings`` (``GAParams`` or ``trainers.*``)."""
    return {
        "hall_of_fame": integer("hall_of_fame", settings.hall_of_fame, 0, 1000),
        "hall_every": integer("hall_every", settings.hall_every, 1, 100_000),
    }


def check_seed(key: str, seed: Any) -> int:
    return integer(key, seed, 0)


__all__ = [
    "GAParams",
    "TrainerStart",
    "check_breeding",
    "check_hall",
    "check_seed",
    "check_trainer_size",
]
