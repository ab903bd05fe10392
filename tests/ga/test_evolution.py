"""The evolution loop without Ray: resume equals uninterrupted; elitism; checkpoints."""

from dataclasses import replace

import numpy as np
import pytest

from sparring.ga import checkpoint
from sparring.ga.evolution import TIMING_KEYS, GAParams, initial_state, run_generation
from sparring.ga.fitness import evaluate_population, play_with_trainers, trainer_seats
from sparring.poker.deal_generation import generate_deals

N = 4


@pytest.fixture(scope="module")
def deals():
    d, _ = generate_deals(0, 10, N, 50, seed=3)
    return d


def loop(deals, cfg, pools=None):
    """One generation as a function of the state; ``pools`` collects the opponent pool sizes."""

    def seats(pool):
        return trainer_seats(pool, N, deals.deal_id, cfg.seed)

    def evaluate(pop, tr):
        if pools is not None:
            pools.append(len(tr))
        return evaluate_population(pop, tr, deals.equity, deals.strength, seats(len(tr)), 1.6, 1.1)

    def challenge(ind, tr):
        net, _, tnet, _ = play_with_trainers(
            ind, tr, deals.equity, deals.strength, seats(len(tr)), 1.6, 1.1
        )
        return float(net.sum()), tnet

    return lambda state: run_generation(state, cfg, evaluate, challenge)


TIMING = TIMING_KEYS


def results(history):
    """The history without its wall-clock fields."""
    return [{k: v for k, v in r.items() if k not in TIMING} for r in history]


CFG = GAParams(population=10, trainer_size=N - 1, seed=5, mutation_genes=5, variance=0.2)


def test_resume_from_checkpoint_equals_uninterrupted(deals, tmp_path):
    step = loop(deals, CFG)
    straight = initial_state(CFG)
    for _ in range(4):
        straight = step(straight)

    interrupted = initial_state(CFG)
    for _ in range(2):
        interrupted = step(interrupted)
        checkpoint.save(interrupted, tmp_path)
    (tmp_path / ".gen-00003.npz.dead.tmp.npz").write_bytes(b"half a file")  # killed mid-write
    resumed = checkpoint.latest(tmp_path)
    assert resumed.generation == 2
    for _ in range(2):
        resumed = step(resumed)
    assert results(resumed.history) == results(straight.history)
    assert np.array_equal(resumed.population, straight.population)
    assert np.array_equal(resumed.trainers, straight.trainers)
    assert resumed.changes == straight.changes
    assert resumed.rng_state == straight.rng_state


def test_checkpoint_round_trip_is_exact(deals, tmp_path):
    state = loop(deals, CFG)(initial_state(CFG))
    back = checkpoint.load(checkpoint.save(state, tmp_path))
    for field in ("population", "trainers", "champion", "used", "hall"):
        assert np.array_equal(getattr(back, field), getattr(state, field))
    assert back.rng_state == state.rng_state and back.history == state.history
    assert back.population.dtype == np.int8


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty"])
def test_a_damaged_newest_checkpoint_is_reported_and_skipped(deals, tmp_path, damage):
    step = loop(deals, CFG)
    state = initial_state(CFG)
    for _ in range(2):
        state = step(state)
        checkpoint.save(state, tmp_path)
    newest = checkpoint.path_for(tmp_path, 2)
    data = bytearray(newest.read_bytes())
    if damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "flip":
        data[len(data) // 3] ^= 0x10  # one bit inside an array
    else:
        data = bytearray()
    newest.write_bytes(bytes(data))
    with pytest.raises(checkpoint.DamagedCheckpoint, match="gen-00002.npz"):
        checkpoint.load(newest)
    said: list[str] = []
    back = checkpoint.latest(tmp_path, said.append)
    assert back is not None and back.generation == 1
    assert len(said) == 1 and "gen-00002.npz" in said[0] and "\n" not in said[0]


def test_a_checkpoint_names_its_config_and_another_config_is_refused(deals, tmp_path):
    state = loop(deals, CFG)(initial_state(CFG))
    checkpoint.save(state, tmp_path, made_by="config-a")
    assert checkpoint.latest(tmp_path, made_by="config-a").generation == 1
    with pytest.raises(checkpoint.ForeignCheckpoint) as info:
        checkpoint.latest(tmp_path, made_by="config-b")
    message = str(info.value)
    assert "gen-00001.npz" in message and "config-a" in message and "config-b" in message
    assert "\n" not in message


def test_elite_survive_unchanged(deals):
    state = initial_state(CFG)
    seats = trainer_seats(N - 1, N, deals.deal_id, 0)
    fitness, _, _ = evaluate_population(
        state.population, state.trainers, deals.equity, deals.strength, seats, 1.6, 1.1
    )
    nxt = loop(deals, CFG)(state)
    top = np.argsort(-fitness, kind="stable")[:2]
    assert np.array_equal(nxt.population[:2], state.population[top])
    assert nxt.champion_fitness == pytest.approx(fitness.max())


def test_larger_trainer_sets_are_sampled_deterministically():
    ids = np.arange(20)
    a = trainer_seats(7, 4, ids, seed=1)
    assert a.shape == (20, 3) and np.array_equal(a, trainer_seats(7, 4, ids, seed=1))
    assert all(len(set(row)) == 3 for row in a.tolist())
    assert len({tuple(r) for r in a.tolist()}) > 1
    with pytest.raises(ValueError, match="cannot fill"):
        trainer_seats(2, 4, ids, seed=1)


HOF = replace(CFG, hall_of_fame=2, hall_every=1)


def test_the_hall_of_fame_keeps_its_bound_and_the_latest_champions(deals):
    pools: list[int] = []
    step = loop(deals, HOF, pools)
    state, champions = initial_state(HOF), []
    for _ in range(5):
        state = step(state)
        champions.append(state.champion)
        assert len(state.hall) == min(state.generation, 2)  # never above the bound
    # a ring of two: entries 0..4 went to slots 0,1,0,1,0
    assert np.array_equal(state.hall[0], champions[4])
    assert np.array_equal(state.hall[1], champions[3])
    # the population played the trainers and the hall (3 trainers + 0, 1, 2, 2, 2)
    assert pools == [3, 4, 5, 5, 5]
    assert [r["hall_of_fame"] for r in state.history] == [1, 2, 2, 2, 2]


def test_every_ten_generations_by_default_and_none_when_off(deals):
    every = replace(CFG, hall_of_fame=3, hall_every=2)
    step = loop(deals, every)
    state = initial_state(every)
    for _ in range(5):
        state = step(state)
    assert len(state.hall) == 2  # after generations 2 and 4
    off = loop(deals, CFG)(initial_state(CFG))
    assert off.hall.shape == (0, 540, 2)


def test_resume_with_a_hall_of_fame_equals_uninterrupted(deals, tmp_path):
    step = loop(deals, HOF)
    straight = initial_state(HOF)
    for _ in range(4):
        straight = step(straight)
    half = initial_state(HOF)
    for _ in range(2):
        half = step(half)
    resumed = checkpoint.load(checkpoint.save(half, tmp_path))
    for _ in range(2):
        resumed = step(resumed)
    assert np.array_equal(resumed.hall, straight.hall)
    assert np.array_equal(resumed.population, straight.population)


def test_a_sigterm_in_the_middle_of_a_checkpoint_waits_for_its_end(deals, tmp_path, monkeypatch):
    """SIGTERM (cron, ``ray job stop``) arriving while numpy writes the checkpoint's zip: the
    checkpoint is finished whole, then the signal ends the run as ``Terminated`` (exit 143). It
    used to cut numpy's writer, whose cleanup raised a ValueError in its place (exit 1)."""
    import os
    import signal

    from sparring.runtime.signals import Terminated, handle_termination

    state = loop(deals, CFG)(initial_state(CFG))
    real_savez = np.savez

    def savez_signalled(file, **members):  # the signal lands inside the zip writer
        os.kill(os.getpid(), signal.SIGTERM)
        real_savez(file, **members)

    previous = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    handle_termination()
    try:
        monkeypatch.setattr(checkpoint.np, "savez", savez_signalled)
        with pytest.raises(Terminated):
            checkpoint.save(state, tmp_path)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    back = checkpoint.load(checkpoint.path_for(tmp_path, state.generation))
    assert np.array_equal(back.population, state.population)
