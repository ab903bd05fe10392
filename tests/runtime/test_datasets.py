import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sparring.runtime.storage import datasets
from sparring.runtime.storage import location as storage
from sparring.runtime.storage.datasets import (
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

    def crash(src, dst):  # the bytes are in a temporary file; renaming it fails
        raise OSError("disk full")

    monkeypatch.setattr(storage.os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        write_table(toy_table(), target, SPEC, config_hash="new", seed=0)
    monkeypatch.undo()
    assert read_metadata(target)["config_hash"] == "old"  # the old file is intact
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.parquet", "t.parquet.sha256"]
    assert pq.read_table(target).num_rows == 3 and is_reusable(target, SPEC, "old")


def _flip(path, offset_fraction: float) -> None:
    data = bytearray(path.read_bytes())
    data[int(len(data) * offset_fraction)] ^= 0x04
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("where", [0.1, 0.3, 0.5, 0.7, 0.9])
def test_a_flipped_bit_anywhere_is_never_reused_nor_read(tmp_path, where):
    big = pa.table({"x": list(range(5000)), "y": [i / 7 for i in range(5000)]})
    path = write_table(big, tmp_path / "t.parquet", SPEC, config_hash="abc", seed=1)
    assert datasets.sidecar(path).exists() and is_reusable(path, SPEC, "abc")
    _flip(path, where)
    said: list[str] = []
    assert not is_reusable(path, SPEC, "abc", report=said.append)
    assert len(said) == 1 and "t.parquet is damaged" in said[0] and "recomputing" in said[0]
    with pytest.raises(DatasetError, match=r"t\.parquet: damaged .*run the pipeline"):
        read_table(path, SPEC)


def test_page_checksums_catch_damage_when_no_digest_is_recorded(tmp_path):
    big = pa.table({"x": list(range(5000)), "y": [i / 7 for i in range(5000)]})
    path = write_table(big, tmp_path / "t.parquet", SPEC, config_hash="abc", seed=1)
    datasets.sidecar(path).delete()
    assert not is_reusable(path, SPEC, "abc")  # unverifiable: recompute rather than trust
    _flip(path, 0.3)  # inside the first column's data page
    with pytest.raises(DatasetError, match="damaged"):
        read_table(path, SPEC)


def test_the_digest_is_written_before_the_file_takes_its_name(tmp_path, monkeypatch):
    calls = []
    real_replace = storage.os.replace

    def spy(src, dst):
        calls.append(str(dst))
        real_replace(src, dst)

    monkeypatch.setattr(storage.os, "replace", spy)
    write_table(toy_table(), tmp_path / "t.parquet", SPEC, config_hash="abc", seed=1)
    assert calls == [str(tmp_path / "t.parquet.sha256"), str(tmp_path / "t.parquet")]
