"""``parallel_map``: fan a function out over items as Ray tasks, with a progress bar.

Results come back in input order and depend only on the items (tasks draw their random streams
from stable keys, see ``seeding``), never on how many workers ran them. Large inputs shared by
every task are put in the object store once and handed to each task by reference.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import ray
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

T = TypeVar("T")
R = TypeVar("R")

_REMOTES: dict[Callable[..., Any], Any] = {}
_NODES: set[str] = set()  # the Ray nodes that ran this process's tasks (see nodes_used)
_CODE: set[str] = set()  # where those tasks imported sparring from (see code_used)


def code_dir() -> str:
    """The directory this process imported the ``sparring`` package from."""
    import sparring

    return str(Path(sparring.__file__).resolve().parent)


def _remote(fn: Callable[..., Any]) -> Any:
    # One remote wrapper per function: Ray exports a function's code once per wrapper.
    if fn not in _REMOTES:

        def on_node(item: Any, **shared: Any) -> tuple[str, str, Any]:
            """``fn``'s result, the id of the node that computed it and where its worker
            imported sparring from (a submitted job's workers import the shipped copy)."""
            return ray.get_runtime_context().get_node_id(), code_dir(), fn(item, **shared)

        on_node.__name__, on_node.__qualname__ = fn.__name__, fn.__qualname__  # Ray's task name
        _REMOTES[fn] = ray.remote(on_node)
    return _REMOTES[fn]


def nodes_used(reset: bool = False) -> set[str]:
    """The ids of the nodes that ran ``parallel_map`` tasks of this process (since the last
    reset); ``reset`` starts counting again (``tracked_run`` does at a run's start)."""
    seen = set(_NODES)
    if reset:
        _NODES.clear()
        _CODE.clear()
    return seen


def code_used() -> set[str]:
    """Where this process and the workers of its tasks (since the last reset) imported
    sparring from."""
    return {code_dir(), *_CODE}


def parallel_map(
    fn: Callable[..., R],
    items: Sequence[T],
    *,
    shared: Mapping[str, Any] | None = None,
    description: str = "tasks",
    max_retries: int = 2,
    num_cpus: float = 1,
    progress: bool = True,
) -> list[R]:
    """Return ``[fn(item, **shared) for item in items]`` computed as Ray tasks.

    ``shared`` values are put in the object store once per call and every task receives them
    (Ray resolves the references before the call); pass an ``ObjectRef`` (``ray.put``) to share
    a value across many calls, e.g. a deal set over all generations of a run. A task that
    raises, or whose worker dies, is retried up to ``max_retries`` times; if it still fails,
    its exception is raised here. Each task also reports the node that ran it (``nodes_used``).
    Ray must already be initialised (``init_ray``).
    """
    if not ray.is_initialized():
        raise RuntimeError("parallel_map needs Ray: call sparring.runtime.ray_session.init_ray()")
    refs_shared = {
        k: v if isinstance(v, ray.ObjectRef) else ray.put(v) for k, v in (shared or {}).items()
    }
    task = _remote(fn).options(
        max_retries=max_retries,
        retry_exceptions=max_retries > 0,
        num_cpus=num_cpus,
        # Inside a Tune trial (a placement group that captures child tasks and holds no CPU)
        # the tasks would wait forever for the group's CPUs: they use the whole cluster.
        # (Ray documents placement_group=None as "leave the group"; its stub says otherwise)
        scheduling_strategy=PlacementGroupSchedulingStrategy(placement_group=None),  # type: ignore[arg-type]
    )
    refs = [task.remote(item, **refs_shared) for item in items]
    if progress and refs:
        _wait_with_progress(refs, description)
    done = ray.get(refs)
    _NODES.update(node for node, _, _ in done)
    _CODE.update(code for _, code, _ in done)
    return [result for _, _, result in done]


def _wait_with_progress(refs: list[Any], description: str) -> None:
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    pending = list(refs)
    with Progress(*columns, transient=False) as bar:
        job = bar.add_task(description, total=len(refs))
        while pending:
            done, pending = ray.wait(pending, num_returns=len(pending), timeout=0.2)
            if done:
                bar.advance(job, len(done))
            else:
                time.sleep(0.01)
