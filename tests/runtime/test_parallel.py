"""parallel_map on the session's real local Ray."""

import os

import numpy as np
import pytest

from sparring.runtime.parallel import parallel_map
from sparring.seeding import task_rng


def draw(key, seed):
    return task_rng(seed, "draw", key).random(3).tolist()


def scale(item, factor):
    return (item * factor).sum()


def flaky(item, marker_dir):
    # Fails the first time each item runs; the retry succeeds.
    marker = os.path.join(marker_dir, f"seen-{item}")
    if not os.path.exists(marker):
        open(marker, "w").close()
        raise RuntimeError(f"transient failure on {item}")
    return item * 10


def always_fails(item):
    raise ValueError(f"bad item {item}")


def test_results_in_input_order_with_shared_input(ray_session):
    big = np.arange(1000.0)
    out = parallel_map(scale, [3, 1, 2], shared={"factor": big}, progress=False)
    assert out == [big.sum() * 3, big.sum(), big.sum() * 2]


def test_same_results_for_one_or_two_workers(ray_session):
    items = list(range(12))
    two_workers = parallel_map(draw, items, shared={"seed": 5}, progress=False)
    # A task needing both CPUs runs alone: one worker at a time.
    one_worker = parallel_map(draw, items, shared={"seed": 5}, num_cpus=2, progress=False)
    assert two_workers == one_worker
    assert two_workers == [draw(k, 5) for k in items]


def test_failed_tasks_are_retried(ray_session, tmp_path):
    out = parallel_map(
        flaky, [1, 2, 3], shared={"marker_dir": str(tmp_path)}, max_retries=1, progress=False
    )
    assert out == [10, 20, 30]


def test_a_task_that_keeps_failing_raises(ray_session):
    with pytest.raises(ValueError, match="bad item 2"):
        parallel_map(always_fails, [2], max_retries=0, progress=False)


def test_tasks_report_the_node_that_ran_them(ray_session):
    import ray

    from sparring.runtime.parallel import nodes_used

    nodes_used(reset=True)
    parallel_map(scale, [np.ones(2)] * 4, shared={"factor": 2.0}, progress=False)
    assert nodes_used(reset=True) == {ray.get_runtime_context().get_node_id()}
    assert nodes_used() == set()  # reset
