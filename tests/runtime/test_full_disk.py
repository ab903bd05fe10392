"""A full disk (#27 item 9): one line naming the path and the space, nothing half-written.

The disk is a real tmpfs a few KiB from full (``tests/helpers/disks.py``): the kernel's ENOSPC,
not a stand-in, reaches the writers.
"""

import errno
import sqlite3
from dataclasses import replace

import numpy as np
import pyarrow as pa
import pytest

from sparring.ga import checkpoint
from sparring.ga.evolution import GAParams, initial_state
from sparring.runtime.explain import one_line
from sparring.runtime.storage.datasets import DatasetSpec, read_table, write_table
from sparring.runtime.storage.location import StorageError
from tests.helpers.disks import small_disk

SPEC = DatasetSpec("noise", 1, pa.schema([("x", pa.int64())]))


def noise(n: int) -> pa.Table:
    return pa.table({"x": np.random.default_rng(0).integers(0, 2**62, n)})


def left_behind(directory) -> list[str]:
    """What a failed write left in ``directory``: anything but the filler."""
    return sorted(p.name for p in directory.iterdir() if p.name != ".filler")


def test_a_dataset_too_big_for_the_disk_is_one_line_and_leaves_no_digest(tmp_path):
    with small_disk(tmp_path / "disk") as disk:
        with pytest.raises(StorageError) as raised:
            write_table(noise(20_000), disk / "part-00000.parquet", SPEC, config_hash="h", seed=1)
        line = one_line(raised.value)
        assert "part-00000.parquet: no space left on the device" in line
        assert "KiB needed" in line and "free on" in line and "\n" not in line
        assert left_behind(disk) == []  # no orphan .sha256, no temporary file
        (disk / ".filler").unlink()  # space freed: the same write goes through
        write_table(noise(20_000), disk / "part-00000.parquet", SPEC, config_hash="h", seed=1)
        assert read_table(disk / "part-00000.parquet", SPEC).num_rows == 20_000


def test_a_checkpoint_on_a_full_disk_is_one_line_and_the_older_one_is_kept(tmp_path):
    state = initial_state(GAParams(population=10, seed=1))
    size_kib = checkpoint.save(state, tmp_path / "measure").local_path().stat().st_size // 1024
    with small_disk(tmp_path / "disk", size_kib=1024, free_kib=size_kib * 3 // 2 + 8) as disk:
        first = checkpoint.save(state, disk)  # fits, and leaves half a checkpoint free
        with pytest.raises(StorageError) as raised:
            checkpoint.save(replace(state, generation=1), disk)
        assert "gen-00001.npz: no space left on the device" in one_line(raised.value)
        assert left_behind(disk) == [first.name]
        assert checkpoint.latest(disk).generation == 0


def test_a_full_disk_met_anywhere_else_is_one_line_too():
    # Hydra's output directory, an MLflow artifact, a log: an OSError the writer did not wrap
    raw = OSError(errno.ENOSPC, "No space left on device", "/data/outputs/config.yaml")
    assert one_line(raw).startswith("/data/outputs/config.yaml: no space left on the device")
    # the SQLite tracking store, through SQLAlchemy and MLflow's wrappers
    try:
        raise RuntimeError("could not log") from sqlite3.OperationalError(
            "database or disk is full"
        )
    except RuntimeError as wrapped:
        line = one_line(wrapped)
    assert line is not None and "disk is full" in line and "free some space" in line
    assert one_line(OSError(errno.EACCES, "Permission denied", "/x")) is None  # not this case
