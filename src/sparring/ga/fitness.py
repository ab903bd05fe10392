"""Fitness: an individual seated with the trainer set over every deal and rotation (bb/100)."""

from __future__ import annotations

import numpy as np

from sparring.poker.catalog import N_GENES
from sparring.poker.engine import PlayResult, play_deals
from sparring.seeding import task_rng

BIG_BLIND = 2.0


def trainer_seats(n_trainers: int, n_seats: int, deal_ids: np.ndarray, seed: int) -> np.ndarray:
    """Which trainers sit at the table for each deal, shape (D, N-1).

    With exactly N-1 trainers all of them play every deal; a larger set is sampled N-1 per deal,
    deterministically from (seed, deal id).
    """
    need = n_seats - 1
    if n_trainers < need:
        raise ValueError(f"{n_trainers} trainers cannot fill {need} seats")
    if n_trainers == need:
        return np.tile(np.arange(need), (len(deal_ids), 1))
    return np.stack(
        [
            np.sort(task_rng(seed, "trainer-seats", int(d)).choice(n_trainers, need, replace=False))
            for d in deal_ids
        ]
    )


def play_with_trainers(
    individual: np.ndarray,
    trainers: np.ndarray,
    equity: np.ndarray,
    strength: np.ndarray,
    seats: np.ndarray,
    raise_factor: float,
    call_factor: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Seat ``individual`` as player 0 with the trainers of ``seats`` on every deal.

    Returns (individual's net per deal (D,), the individual's used mask, each trainer's total
    net (T,), hands played).
    """
    n_deals = len(strength)
    net0 = np.zeros(n_deals)
    trainer_net = np.zeros(len(trainers))
    used = np.zeros(N_GENES, dtype=bool)
    hands = 0
    groups, inverse = np.unique(seats, axis=0, return_inverse=True)
    for g, row in enumerate(groups):
        mask = inverse.ravel() == g
        table = np.concatenate([individual[None], trainers[row]])
        result: PlayResult = play_deals(
            equity[mask], strength[mask], table, raise_factor, call_factor
        )
        net0[mask] = result.net_per_deal[:, 0]
        np.add.at(trainer_net, row, result.net_per_deal[:, 1:].sum(axis=0))
        used |= result.used[0]
        hands += result.hands
    return net0, used, trainer_net, hands


def bb_per_100(net_chips: float | np.ndarray, hands: int) -> float | np.ndarray:
    return net_chips / BIG_BLIND / hands * 100.0


def evaluate_population(
    population: np.ndarray,
    trainers: np.ndarray,
    equity: np.ndarray,
    strength: np.ndarray,
    seats: np.ndarray,
    raise_factor: float,
    call_factor: float,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Fitness (bb/100) and used masks of each individual; also the hands played."""
    fitness = np.empty(len(population))
    used = np.zeros((len(population), N_GENES), dtype=bool)
    hands = 0
    for i, individual in enumerate(population):
        net, used[i], _, h = play_with_trainers(
            individual, trainers, equity, strength, seats, raise_factor, call_factor
        )
        fitness[i] = bb_per_100(net.sum(), h)
        hands += h
    return fitness, used, hands


def evaluate_chunk(
    population: np.ndarray,
    trainers: np.ndarray,
    deals: tuple,
    seats: np.ndarray,
    raise_factor: float,
    call_factor: float,
):
    """One Ray task of evolve: fitness, used masks and hands for a chunk of the population
    (``deals``: the training set's equity and strength arrays). It lives here, not in the
    pipeline body, so a worker that runs it imports the GA and the engine only (the body
    imports MLflow and Hydra: ~1.5 s of CPU for every new worker)."""
    equity, strength = deals
    return evaluate_population(
        population, trainers, equity, strength, seats, raise_factor, call_factor
    )
