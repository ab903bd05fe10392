"""Locations on the local disk and on a real S3 server (moto on 127.0.0.1): the same API,
atomic writes, datasets and checkpoints that round-trip and refuse damage the same way."""

from __future__ import annotations

import pickle

import pyarrow as pa
import pytest

from sparring.runtime.errors import ConfigError
from sparring.runtime.storage import location as storage
from sparring.runtime.storage.datasets import (
    DatasetError,
    DatasetSpec,
    is_reusable,
    read_table,
    sidecar,
    write_table,
)
from sparring.runtime.storage.location import StorageError, locate

SPEC = DatasetSpec("toy", 1, pa.schema([("x", pa.int64())]))


@pytest.fixture(params=["local", "s3"])
def root(request, tmp_path):
    """A directory on the local disk, or a bucket on the test S3 server."""
    if request.param == "local":
        yield str(tmp_path / "root")
        return
    s3 = request.getfixturevalue("s3")
    # locate() takes options explicitly; without them it reads the standard environment
    request.getfixturevalue("monkeypatch").setenv("AWS_ENDPOINT_URL_S3", s3.endpoint)
    yield request.getfixturevalue("s3_bucket") + "/root"


def test_bytes_round_trip_listing_and_deletion(root):
    where = locate(root)
    assert not where.exists() and where.glob("*") == []
    for name in ("b.txt", "a.txt", "c.bin"):
        (where / name).write_text(name.upper())
    assert [p.name for p in where.glob("*.txt")] == ["a.txt", "b.txt"]
    assert (where / "a.txt").read_text() == "A.TXT" and (where / "a.txt").is_file()
    assert where.is_dir() and (where / "a.txt").parent.path == where.path
    (where / "a.txt").delete()
    (where / "a.txt").delete()  # already gone: nothing happens
    assert not (where / "a.txt").exists()
    with pytest.raises(FileNotFoundError):
        (where / "a.txt").read_bytes()


def test_a_location_pickles_to_the_same_place(root):
    """What a Ray task receives: it writes where the driver reads."""
    where = locate(root) / "x.txt"
    pickle.loads(pickle.dumps(where)).write_text("from a task")
    assert where.read_text() == "from a task" and str(pickle.loads(pickle.dumps(where))) == str(
        where
    )


def test_datasets_round_trip_and_damage_is_refused(root):
    path = locate(root) / "t.parquet"
    write_table(pa.table({"x": list(range(100))}), path, SPEC, config_hash="h", seed=0)
    assert sidecar(path).exists() and is_reusable(path, SPEC, "h")
    assert not is_reusable(path, SPEC, "other config")
    assert read_table(path, SPEC).column("x").to_pylist() == list(range(100))
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))  # a flipped bit on the store
    said: list[str] = []
    assert not is_reusable(path, SPEC, "h", report=said.append)
    assert len(said) == 1 and "t.parquet is damaged" in said[0]
    with pytest.raises(DatasetError, match=r"t\.parquet: damaged"):
        read_table(path, SPEC)


def test_a_written_file_is_the_only_object_left(root):
    """No temporary names stay behind: the store holds the file and its digest."""
    where = locate(root)
    write_table(pa.table({"x": [1]}), where / "t.parquet", SPEC, config_hash="h", seed=0)
    assert [p.name for p in where.glob("*")] == ["t.parquet", "t.parquet.sha256"]


@pytest.mark.parametrize(
    "uri, says",
    [
        ("hdfs://cluster/data", "unknown storage scheme 'hdfs'"),
        ("ftp://host/data", "unknown storage scheme 'ftp'"),
        ("s3://", "no bucket named"),
    ],
)
def test_an_unusable_uri_is_refused_in_one_line(uri, says):
    with pytest.raises(StorageError, match=says) as info:
        locate(uri)
    assert "s3://bucket/prefix" in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize(
    "override, says",
    [
        ("deals.root=hdfs://x/deals", "deals.root=hdfs://x/deals is not allowed: expected a local"),
        ("checkpoint_root=s3://", "checkpoint_root=s3:// is not allowed"),
        ("storage.endpoint=127.0.0.1:9000", "expected a URL such as http://127.0.0.1:9000"),
    ],
)
def test_the_config_refuses_bad_storage_before_any_work(pipeline_config, override, says):
    with pytest.raises(ConfigError, match=says):
        pipeline_config("evolve", override)


def test_an_unreachable_store_is_one_line_naming_the_place():
    nowhere = storage.StorageOptions(endpoint="http://127.0.0.1:9")  # nothing listens
    with pytest.raises(StorageError, match=r"s3://nowhere/x: cannot be reached") as info:
        locate("s3://nowhere/x", nowhere).exists()
    assert "\n" not in str(info.value)


def test_file_uris_and_plain_paths_are_the_same_place(tmp_path):
    (tmp_path / "a.txt").write_text("same")
    assert locate(f"file://{tmp_path}/a.txt").read_text() == "same"
    assert locate(tmp_path / "a.txt").is_local and not storage.is_remote(str(tmp_path))
    assert storage.is_remote("s3://b/k") and storage.is_remote("gs://b/k")


WRITER = """
import sys
from sparring.runtime.storage import location as storage
options = storage.StorageOptions(endpoint=sys.argv[1])
storage.locate(sys.argv[2], options).write_bytes(b"x" * (200 << 20))
"""


def test_a_writer_killed_mid_upload_leaves_no_object(s3, s3_bucket):
    """SIGKILL after the first part of a 200 MB object reached the store: nothing is there,
    not even a prefix of the bytes (a multipart upload shows only once it is completed)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    target = f"{s3_bucket}/big.bin"
    bucket = s3_bucket.split("://")[1]
    before = len(s3.requests())
    proc = subprocess.Popen([sys.executable, "-c", WRITER, s3.endpoint, target])
    deadline = time.monotonic() + 120
    while f"/{bucket}/big.bin?partNumber=" not in s3.requests()[before:]:
        assert proc.poll() is None and time.monotonic() < deadline, "no part was uploaded"
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    log = s3.requests()[before:]
    assert "POST /" + bucket + "/big.bin?uploadId=" not in log  # never completed
    options = storage.StorageOptions(endpoint=s3.endpoint)
    assert not locate(target, options).exists() and locate(s3_bucket, options).glob("*") == []


def test_a_root_that_cannot_be_written_is_one_line_before_any_write(s3, s3_bucket, tmp_path):
    on_s3 = storage.StorageOptions(endpoint=s3.endpoint)
    locate(f"{s3_bucket}/deals/new", on_s3).check_writable()  # an existing bucket: fine
    locate(str(tmp_path / "not" / "yet"), on_s3).check_writable()  # made on the first write
    with pytest.raises(StorageError) as info:
        locate("s3://no-such-bucket-here/deals", on_s3).check_writable()
    assert str(info.value) == (
        "s3://no-such-bucket-here/deals: the bucket 'no-such-bucket-here' does not exist at "
        "this store; create it, or name an existing bucket (check storage.endpoint)"
    )
    (tmp_path / "file").write_text("")
    with pytest.raises(StorageError, match=r"/file is a file, not a directory$"):
        locate(str(tmp_path / "file" / "deals")).check_writable()
    nowhere = storage.StorageOptions(endpoint="http://127.0.0.1:9")  # nothing listens
    with pytest.raises(StorageError, match=r"s3://nowhere: cannot be reached"):
        locate("s3://nowhere/x", nowhere).check_writable()
