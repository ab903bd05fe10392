import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sparring.runtime import datasets
from sparring.runtime.datasets import (
    DatasetError,
    DatasetSpec,
    is_reusable,
    read_metadata,
    read_table,
    write_table,
)

SPEC = DatasetSpec("toy", 2, pa.schema([("x", pa.int32()), ("y", pa.float32())]))


def toy_table():
    return pa.table({"x": [1, 2, 3], "y": [0.5, 1.5, 2.5]})


def test_round_trip_with_schema_and_metadata(tmp_path):
    path = write_table(
        toy_table(), tmp_path / "t.parquet", SPEC, config_hash="abc", seed=4, extra={"trials": 10}
    )
    back = read_table(path, SPEC)
    assert back.schema.equals(SPEC.schema)
    assert back.column("x").to_pylist() == [1, 2, 3]
    meta = read_metadata(path)
    assert meta == {
        "dataset": "toy",
        "schema_version": "2",
        "config_hash": "abc",
        "seed": "4",
        "trials": "10",
    }
    assert is_reusable(path, SPEC, "abc") and not is_reusable(path, SPEC, "other")


def test_mismatches_are_explained(tmp_path):
    path = write_table(toy_table(), tmp_path / "t.parquet", SPEC, config_hash="h", seed=None)
    newer = DatasetSpec("toy", 3, SPEC.schema)
    with pytest.raises(DatasetError, match="schema version 2 but this code reads version 3"):
        read_table(path, newer)
    other = DatasetSpec("deals", 2, SPEC.schema)
    with pytest.raises(DatasetError, match="expected a 'deals' dataset, found 'toy'"):
        read_table(path, other)
    wider = DatasetSpec("toy", 2, SPEC.schema.append(pa.field("z", pa.int8())))
    with pytest.raises(DatasetError, match="column 'z' is missing"):
        read_table(path, wider)
    with pytest.raises(DatasetError, match="no such dataset file"):
        read_table(tmp_path / "missing.parquet", SPEC)
    with pytest.raises(DatasetError, match="does not fit the declared schema"):
        write_table(pa.table({"x": [1]}), tmp_path / "u.parquet", SPEC, config_hash="h", seed=0)


def test_a_crash_mid_write_leaves_no_file_that_looks_whole(tmp_path, monkeypatch):
    target = tmp_path / "t.parquet"
    write_table(toy_table(), target, SPEC, config_hash="old", seed=0)

    def crash(table, where, **kwargs):
        with open(where, "wb") as f:
            f.write(b"PAR1 partial")
        raise OSError("disk full")

    monkeypatch.setattr(datasets.pq, "write_table", crash)
    with pytest.raises(OSError, match="disk full"):
        write_table(toy_table(), target, SPEC, config_hash="new", seed=0)
    monkeypatch.undo()
    assert read_metadata(target)["config_hash"] == "old"  # the old file is intact
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.parquet"]  # no temp left
    assert pq.read_table(target).num_rows == 3
