"""``parallel_map``: fan a function out over items as Ray tasks, with a progress bar.

Results come back in input order and depend only on the items (tasks draw their random streams
from stable keys, see ``seeding``), never on how many workers ran them. Large inputs shared by
every task are put in the object store once and handed to each task by reference.

A task that fails is reported by its cause, never by the task's name alone: an expected failure
(a ``UsageError``: a store that cannot be used, a damaged dataset, a bad value) is raised here as
itself, at once and never retried, since the same task run again cannot succeed; any other
exception (it may be passing) and a worker that died are retried, then raised as themselves.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import ray
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from sparring.runtime.errors import UsageError
from sparring.runtime.ray.health import diagnose

T = TypeVar("T")
R = TypeVar("R")

_REMOTES: dict[Callable[..., Any], Any] = {}
_NODES: set[str] = set()  # the Ray nodes that ran this process's tasks (see nodes_used)
_CODE: set[str] = set()  # where those tasks imported sparring from (see code_used)


def code_dir() -> str:
    """The directory this process imported the ``sparring`` package from."""
    import sparring

    return str(Path(sparring.__file__).resolve().parent)


@dataclass(frozen=True)
class _Refused:
    """What a task returns instead of raising an expected failure: Ray retries a raised
    exception (``retry_exceptions``), and a ``UsageError`` cannot succeed when run again."""

    error: UsageError


def _remote(fn: Callable[..., Any]) -> Any:
    # One remote wrapper per function: Ray exports a function's code once per wrapper.
    if fn not in _REMOTES:

        def on_node(item: Any, **shared: Any) -> tuple[str, str, Any]:
            """``fn``'s result (or its expected failure as a ``_Refused``), the id of the node
            that computed it and where its worker imported sparring from (a submitted job's
            workers import the shipped copy)."""
            try:
                result: Any = fn(item, **shared)
            except UsageError as exc:
                result = _Refused(exc)
            return ray.get_runtime_context().get_node_id(), code_dir(), result

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
    on_result: Callable[[int, R], None] | None = None,
) -> list[R]:
    """Return ``[fn(item, **shared) for item in items]`` computed as Ray tasks.

    ``shared`` values are put in the object store once per call and every task receives them
    (Ray resolves the references before the call); pass an ``ObjectRef`` (``ray.put``) to share
    a value across many calls, e.g. a deal set over all generations of a run. A task that
    raises a ``UsageError`` fails the call at once with that error (never retried, the other
    tasks cancelled); one that raises anything else, or whose worker dies, is retried up to
    ``max_retries`` times, and if it still fails its own exception is raised here (Ray's
    ``RayTaskError``, with the remote traceback, chained to it). Each task also reports the node
    that ran it (``nodes_used``). ``on_result(i, value)`` is called as item ``i``'s task
    finishes (in the order they finish: a caller keeps each result at once, e.g. a resumable
    checkpoint). Ray must already be initialised (``init_ray``).
    """
    if not ray.is_initialized():
        raise RuntimeError("parallel_map needs Ray: call sparring.runtime.ray.session.init_ray()")
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
    kept = None if on_result is None else (lambda i, value: on_result(i, value[2]))
    done = _gather(refs, description if progress else None, kept)
    _NODES.update(node for node, _, _ in done)
    _CODE.update(code for _, code, _ in done)
    return [result for _, _, result in done]


def _gather(
    refs: list[Any], description: str | None, on_value: Callable[[int, Any], None] | None = None
) -> list[Any]:
    """The values of ``refs`` in their order, taken as tasks finish (a progress bar named
    ``description`` unless it is None; ``on_value(i, value)`` as ``refs[i]`` finishes). The
    first failure cancels the tasks still pending and is raised as its cause (see ``_value``)."""
    values: dict[Any, Any] = {}
    index = {ref: i for i, ref in enumerate(refs)}
    pending = list(refs)
    with _bar(description, len(refs)) as advance:
        while pending:
            done, pending = ray.wait(pending, num_returns=len(pending), timeout=0.2)
            try:
                for ref in done:
                    values[ref] = _value(ref)
                    if on_value is not None:
                        on_value(index[ref], values[ref])
            except BaseException:
                for ref in pending:
                    ray.cancel(ref)
                raise
            if done:
                advance(len(done))
            else:
                time.sleep(0.01)
    return [values[ref] for ref in refs]


def _value(ref: Any) -> Any:
    """One task's value; its failure raised as the exception the task raised, not Ray's
    wrapper (whose text is the task's name, a remote traceback and colour codes)."""
    try:
        value = ray.get(ref)
    except ray.exceptions.RayTaskError as exc:
        cause = exc.cause
        if isinstance(cause, UsageError):
            raise cause from None
        raise (diagnose() or cause) from exc  # Ray's own failure named as such, if it is one
    except ray.exceptions.RayError as exc:
        lost = diagnose()
        if lost is None:
            raise
        raise lost from exc
    if isinstance(value[2], _Refused):
        raise value[2].error
    return value


@contextmanager
def _bar(description: str | None, total: int) -> Iterator[Callable[[int], None]]:
    """A function that advances a progress bar of ``total`` steps (no bar without a
    ``description`` or without steps)."""
    if description is None or not total:
        yield lambda n: None
        return
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, transient=False) as bar:
        job = bar.add_task(description, total=total)
        yield lambda n: bar.advance(job, n)
