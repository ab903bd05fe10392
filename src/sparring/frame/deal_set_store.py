"""Deal sets on disk: what defines one, generating its missing shards as Ray tasks, loading it.

A deal set lives in ``<root>/<config-hash>/part-XXXXX.parquet``; the root is a local path or a
storage URI (``s3://bucket/deals``). Each shard is written by its task atomically (a temporary
name renamed, or one upload), so a killed run leaves only whole shards;
``ensure_deal_set`` finds them (same config hash in their metadata) and computes only the missing
ones. The handgen pipeline, evolve, retrain and the CLI all get their deal sets from here.
"""

from __future__ import annotations

import re
import time
from typing import Any

import numpy as np

from sparring.poker.deal_generation import DealSet, deal_spec, generate_deals
from sparring.poker.deal_set_config import DealSetConfig, Root
from sparring.poker.preflop import load_table
from sparring.runtime.errors import UsageError
from sparring.runtime.ray.parallel import parallel_map
from sparring.runtime.storage.datasets import (
    DatasetError,
    check_file,
    is_reusable,
    misplaced,
    read_metadata,
    read_table,
    verify,
    write_table,
)
from sparring.runtime.storage.location import Location, locate

REGENERATE_DEALS = (
    "rerun pipelines/handgen.py (or the evolve run) with the same config: it recomputes the shard"
)


def write_shard(
    shard: tuple[int, int, int], settings: DealSetConfig, root: Location, preflop: np.ndarray
) -> dict:
    """One task: generate one shard's deals (``preflop``: the equity grid the policy reads)
    and write them; returns its counts."""
    index, first, count = shard
    start = time.perf_counter()
    deals, rejected = generate_deals(
        first,
        count,
        settings.table_size,
        settings.equity_trials,
        settings.seed,
        preflop,
        settings.raise_factor,
        settings.call_factor,
    )
    write_table(
        deals.to_arrow(),
        settings.shard_path(root, index),
        deal_spec(settings.table_size),
        config_hash=settings.data_hash,
        seed=settings.seed,
        extra={
            "n_seats": settings.table_size,
            "equity_trials": settings.equity_trials,
            "deals": settings.deals,
            "shard_size": settings.shard_size,
            "shard": index,
            "rejected": int(rejected.sum()),
        },
    )
    return {
        "shard": index,
        "deals": count,
        "rejected": int(rejected.sum()),
        "seconds": time.perf_counter() - start,
    }


def missing_shards(settings: DealSetConfig, root: Root) -> list[tuple[int, int, int]]:
    spec = deal_spec(settings.table_size)
    return [
        s
        for s in settings.shards
        if not is_reusable(
            settings.shard_path(root, s[0]), spec, settings.data_hash, identity={"shard": s[0]}
        )
    ]


def check_visible(settings: DealSetConfig, root: Location, written: list) -> None:
    """Fail in one line when shards the tasks wrote are not where this driver reads: a local
    root on a cluster whose nodes do not share that disk (each shard lands on the node that
    ran its task), or on an object store, shards removed since they were written."""
    unseen = [s[0] for s in written if not settings.shard_path(root, s[0]).exists()]
    if not unseen:
        return
    what = (f"{len(unseen)} of {len(written)} shards written under {root.display()} are not "
            f"visible from this driver (e.g. part-{unseen[0]:05d})")  # fmt: skip
    if root.is_local:
        raise UsageError(f"{what}: the tasks ran on nodes that do not share that disk; use "
                         "s3://..., gs://... or a shared path")  # fmt: skip
    raise UsageError(
        f"{what}: they were removed from the store after they were written (a lifecycle "
        "rule, another user?); run the same command again to make them"
    )


def ensure_deal_set(
    settings: DealSetConfig,
    root: Root,
    preflop_table: Location | None = None,
    cores: int | None = None,
) -> tuple[Location, dict[str, float]]:
    """Make sure the deal set exists under ``root`` (computing only missing shards); returns
    its directory and the counts of the run, with its ``rates`` when ``cores`` (the CPUs of
    the cluster) is given and deals were made. A root that cannot be written fails in one
    ``StorageError`` before any task runs.

    ``preflop_table`` is where ``settings.preflop_table`` is, with the storage options of the
    config that named it (default: that path located with the environment's options)."""
    root = locate(root)
    if preflop_table is None and settings.preflop_table is not None:
        preflop_table = locate(settings.preflop_table)
    todo = missing_shards(settings, root)
    if todo:
        root.check_writable()  # one line now, not one failing task per shard
    start = time.perf_counter()
    done = parallel_map(
        write_shard,
        todo,
        # absolute: a task's worker may run in another directory than this driver
        shared={
            "settings": settings,
            "root": root.absolute(),
            # read once here, where the storage options are known (the table may be on a store)
            "preflop": load_table(preflop_table) if todo else None,
        },
        description=f"handgen: {shards_label(todo)}",
    )
    wall = time.perf_counter() - start
    check_visible(settings, root, todo)
    made = sum(r["deals"] for r in done)
    rejected = sum(r["rejected"] for r in done)
    stats = {
        "deals": settings.deals,
        "shards": len(settings.shards),
        "shards_written": len(done),
        "shards_reused": len(settings.shards) - len(done),
        "deals_generated": made,
        "rejected_candidates": rejected,
        "wall_s": wall,
    }
    if made:  # nothing dealt (every shard reused): no rate was measured, so none is given
        stats["flop_filter_rejection_rate"] = rejected / (made + rejected)
    if made and cores is not None:
        task_seconds = sum(r["seconds"] for r in done)
        trials = made * settings.table_size * 3 * settings.equity_trials
        stats.update(rates(made, trials, wall, task_seconds, cores))
    return settings.directory(root), stats


def shards_label(shards: list[tuple[int, int, int]]) -> str:
    """What a run computes, as a person counts it: ``40 deals in 1 shard`` (the deals of those
    shards, not the configured shard size)."""
    deals = sum(count for _, _, count in shards)
    return f"{deals:,} deals in {len(shards)} shard{'' if len(shards) == 1 else 's'}"


def rates(
    deals: int, equity_trials: int, wall: float, task_seconds: float, cores: int
) -> dict[str, float]:
    """The throughput of a run that made ``deals`` (and ran ``equity_trials`` Monte Carlo
    outcomes) in ``wall`` seconds on ``cores`` CPUs, its tasks working ``task_seconds`` in all.

    ``*_per_s`` is per wall second, ``*_per_s_per_core`` that shared by every core of the
    cluster (so never above ``*_per_s``), and ``deals_per_task_s`` per second a task worked:
    one busy core's speed, above the per-core figure when cores were idle (fewer shards than
    cores) or the run had other costs (starting workers, writing)."""
    return {
        "deals_per_s": deals / wall,
        "deals_per_s_per_core": deals / wall / cores,
        "deals_per_task_s": deals / task_seconds,
        "equity_trials_per_s_per_core": equity_trials / wall / cores,
    }


def load_deal_set(directory: Root) -> DealSet:
    """Read and validate a whole deal set (every shard present, one config hash)."""
    directory = locate(directory)
    parts = directory.glob("part-*.parquet")
    if not parts:
        raise DatasetError(f"{directory}: no deal shards (run pipelines/handgen.py)")
    for part in parts:  # damaged bytes first: every later message assumes intact files
        verify(part, REGENERATE_DEALS)
    meta = read_metadata(parts[0])
    try:
        n, total = int(meta["n_seats"]), int(meta["deals"])
        expected_shards = -(-total // int(meta["shard_size"]))
    except (KeyError, ValueError) as exc:
        raise DatasetError(f"{parts[0]}: not a deal shard (metadata {exc} missing)") from exc
    spec = deal_spec(n)
    sets = []
    for part in parts:
        found = check_file(part, spec)
        if found["config_hash"] != meta["config_hash"]:
            raise DatasetError(f"{part}: belongs to another deal set")
        named = re.fullmatch(r"part-(\d+)\.parquet", part.name)
        if named is None:  # a copy beside the shards ("part-00000-copy.parquet")
            raise DatasetError(f"{part}: not a shard's name (part-<n>.parquet); move it away")
        wrong = misplaced(found, {"shard": int(named.group(1))})
        if wrong:  # an intact shard under another's name: its digest cannot tell
            raise DatasetError(f"{part}: holds {wrong}; {REGENERATE_DEALS}")
        sets.append(DealSet.from_arrow(read_table(part, spec, regenerate=REGENERATE_DEALS)))
    deals = DealSet.concat(sets)
    if len(parts) != expected_shards or len(deals) != total:
        raise DatasetError(
            f"{directory}: incomplete deal set ({len(parts)} of {expected_shards} shards, "
            f"{len(deals)} of {total} deals); rerun handgen with the same config to complete it"
        )
    ids = np.sort(deals.deal_id)
    if not np.array_equal(ids, np.arange(total)):
        repeated = ids[1:][ids[1:] == ids[:-1]]
        twice = f" (deal {int(repeated[0])} appears twice)" if repeated.size else ""
        raise DatasetError(
            f"{directory}: deal ids are not 0..{total - 1} once each{twice}; {REGENERATE_DEALS}"
        )
    return deals.subset(np.argsort(deals.deal_id, kind="stable"))


_CONTEXTS = {"train": "training", "heldout": "evaluation"}


def log_deal_set(
    mlrun: Any, name: str, settings: DealSetConfig, directory: Location, deals: int, role: str
) -> None:
    """Record the deal set as an MLflow input of ``mlrun`` (its digest is the config hash that
    names the directory: the same hash, the same deals)."""
    mlrun.log_dataset(
        name,
        str(directory),
        settings.data_hash,
        _CONTEXTS.get(role, role),
        deals=deals,
        seats=settings.table_size,
        seed=settings.seed,
    )


def open_deal_set(
    mlrun: Any, settings: DealSetConfig, root: Location, role: str
) -> tuple[Location, DealSet]:
    """A pipeline's deal set: made where missing (``ensure_deal_set``), loaded, and logged as
    the input ``deals-<role>`` of ``mlrun``; returns its directory and its deals."""
    directory, _ = ensure_deal_set(settings, root)
    deals = load_deal_set(directory)
    log_deal_set(mlrun, f"deals-{role}", settings, directory, len(deals), role)
    return directory, deals
