"""parallel_map on the session's real local Ray."""

import os
import uuid

import numpy as np
import pytest

from sparring.runtime.errors import ConfigError
from sparring.runtime.explain import one_line
from sparring.runtime.ray.parallel import parallel_map
from sparring.runtime.storage.location import StorageError
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

    from sparring.runtime.ray.parallel import nodes_used

    nodes_used(reset=True)
    parallel_map(scale, [np.ones(2)] * 4, shared={"factor": 2.0}, progress=False)
    assert nodes_used(reset=True) == {ray.get_runtime_context().get_node_id()}
    assert nodes_used() == set()  # reset


def refused(item, marker_dir):
    # Counts its attempts; item 2 meets a store that cannot be used, which no retry can cure.
    open(os.path.join(marker_dir, f"attempt-{item}-{uuid.uuid4().hex}"), "w").close()
    if item == 2:
        raise StorageError(f"s3://b/part-{item}: cannot be written (NO_SUCH_BUCKET)")
    if item == 3:
        raise ConfigError("deals", 0, "an integer >= 1")
    return item


def test_an_expected_failure_is_raised_as_its_cause_once_and_never_retried(ray_session, tmp_path):
    with pytest.raises(StorageError) as info:
        parallel_map(refused, [1, 2], shared={"marker_dir": str(tmp_path)}, progress=False)
    assert type(info.value) is StorageError  # not Ray's wrapper, whose text is the task's name
    assert str(info.value) == "s3://b/part-2: cannot be written (NO_SUCH_BUCKET)"
    assert len(list(tmp_path.glob("attempt-2-*"))) == 1  # max_retries=2 did not apply
    with pytest.raises(ConfigError) as config:
        parallel_map(refused, [3], shared={"marker_dir": str(tmp_path)}, progress=False)
    assert str(config.value) == "deals=0 is not allowed: expected an integer >= 1"
    assert one_line(config.value) == str(config.value)


def test_a_bug_in_a_task_is_raised_as_itself_without_colour_codes(ray_session):
    with pytest.raises(ValueError) as info:
        parallel_map(always_fails, [2], max_retries=0, progress=False)
    assert str(info.value) == "bad item 2" and "\x1b" not in str(info.value)
    assert "ray::always_fails" in str(info.value.__cause__)  # the remote traceback, chained


def test_each_result_is_handed_over_as_its_task_ends(ray_session):
    """``on_result(i, value)``: once per item, with its index and the value the list holds (a
    caller keeps each result at once, e.g. the arena saves a block as it ends)."""
    seen: list[tuple[int, float]] = []
    big = np.arange(10.0)
    out = parallel_map(scale, [3, 1, 2, 5], shared={"factor": big}, progress=False,
                       on_result=lambda i, value: seen.append((i, value)))  # fmt: skip
    assert sorted(seen) == list(enumerate(out))
