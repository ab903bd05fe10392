"""handgen end to end: shards, metadata, MLflow, resume after a kill, replay."""

import numpy as np
import pytest
from mlflow.tracking import MlflowClient

from sparring.cli import main as cli
from sparring.frame.deal_set_store import load_deal_set
from sparring.pipelines.handgen import run
from sparring.runtime.explain import one_line
from sparring.runtime.storage.datasets import DatasetError, read_metadata
from sparring.runtime.storage.location import StorageError
from tests.helpers.configs import config_error
from tests.helpers.disks import small_disk

TINY = ("deals=6", "table_size=4", "equity_trials=40", "shard_size=2", "seed=3")


def test_tiny_run_then_resume_only_missing_shards(ray_session, pipeline_config, tmp_path):
    cfg = pipeline_config("handgen", *TINY, f"output_root={tmp_path}")
    first = run(cfg)
    directory = first["output"].local_path()
    parts = sorted(directory.glob("part-*.parquet"))
    assert [p.name for p in parts] == [
        "part-00000.parquet",
        "part-00001.parquet",
        "part-00002.parquet",
    ]
    meta = read_metadata(parts[0])
    assert meta["dataset"] == "deals" and meta["n_seats"] == "4"
    assert meta["equity_trials"] == "40" and meta["seed"] == "3"
    original = load_deal_set(directory)
    assert len(original) == 6 and original.holes.shape == (6, 4, 2)
    assert list(original.deal_id) == list(range(6))

    metrics = MlflowClient(cfg.tracking.uri).get_run(first["run_id"]).data.metrics
    assert metrics["shards_written"] == 3 and metrics["deals_generated"] == 6
    assert 0 <= metrics["flop_filter_rejection_rate"] < 1 and metrics["deals_per_s"] > 0

    # A killed run: one shard never written, one left as a partial temp file and one
    # overwritten with garbage. None of them may count as complete.
    parts[1].unlink()
    (directory / ".part-00002.parquet.dead.tmp").write_bytes(b"PAR1 half")
    parts[2].write_bytes(b"PAR1 not really parquet")
    with pytest.raises(DatasetError):
        load_deal_set(directory)
    untouched = parts[0].stat().st_mtime_ns
    second = run(cfg)
    assert second["metrics"]["shards_written"] == 2 and second["metrics"]["shards_reused"] == 1
    assert parts[0].stat().st_mtime_ns == untouched
    resumed = load_deal_set(directory)
    for field in ("board", "holes", "equity", "strength"):
        np.testing.assert_array_equal(getattr(resumed, field), getattr(original, field))
    third = run(cfg)  # every shard there: nothing dealt, so no rejection rate (it said 0.000)
    assert third["metrics"]["shards_reused"] == 3
    assert "flop_filter_rejection_rate" not in third["metrics"]


def rerun_recomputes_the_shard(cfg, capsys, marker: str, says: str, original) -> None:
    """Run ``cfg`` again: one shard written, two reused, one line with ``marker`` saying
    ``says``, and the set whole again, as it was."""
    capsys.readouterr()
    again = run(cfg)
    assert again["metrics"]["shards_written"] == 1 and again["metrics"]["shards_reused"] == 2
    said = [line for line in capsys.readouterr().out.splitlines() if marker in line]
    assert len(said) == 1 and says in said[0]
    repaired = load_deal_set(again["output"].local_path())
    for field in ("board", "holes", "equity", "strength", "deal_id"):
        np.testing.assert_array_equal(getattr(repaired, field), getattr(original, field))


def test_a_shard_with_one_flipped_byte_is_refused_on_load_and_recomputed_on_reuse(
    ray_session, pipeline_config, tmp_path, capsys
):
    cfg = pipeline_config("handgen", *TINY, f"output_root={tmp_path}")
    directory = run(cfg)["output"].local_path()
    original = load_deal_set(directory)
    shard = directory / "part-00001.parquet"
    data = bytearray(shard.read_bytes())
    data[len(data) // 3] ^= 0x01
    shard.write_bytes(bytes(data))
    with pytest.raises(DatasetError, match=r"part-00001\.parquet: damaged .*pipelines/handgen"):
        load_deal_set(directory)
    rerun_recomputes_the_shard(cfg, capsys, "damaged", "part-00001.parquet", original)


def test_an_intact_copy_of_another_shard_is_refused_on_load_and_recomputed_on_reuse(
    ray_session, pipeline_config, tmp_path, capsys
):
    """Shard 0 and its digest copied over shard 1: the bytes match their digest, but the shard
    is not the one its name says (its deals would count twice)."""
    cfg = pipeline_config("handgen", *TINY, f"output_root={tmp_path}")
    directory = run(cfg)["output"].local_path()
    original = load_deal_set(directory)
    for suffix in ("", ".sha256"):
        src = directory / f"part-00000.parquet{suffix}"
        text = src.read_bytes().replace(b"part-00000", b"part-00001")
        (directory / f"part-00001.parquet{suffix}").write_bytes(text)
    with pytest.raises(
        DatasetError, match=r"part-00001\.parquet: holds shard 0, not shard 1; rerun pipelines"
    ):
        load_deal_set(directory)
    said = "part-00001.parquet holds shard 0, not shard 1"
    rerun_recomputes_the_shard(cfg, capsys, "holds shard", said, original)


def test_a_stray_file_among_the_shards_is_one_line(ray_session, pipeline_config, tmp_path):
    cfg = pipeline_config("handgen", *TINY, f"output_root={tmp_path}")
    directory = run(cfg)["output"].local_path()
    (directory / "part-00000-copy.parquet").write_bytes(
        (directory / "part-00000.parquet").read_bytes()
    )
    with pytest.raises(DatasetError, match=r"part-00000-copy\.parquet: not a shard's name"):
        load_deal_set(directory)


def test_a_shard_whose_metadata_is_right_but_whose_deals_are_another_shards_is_refused(
    ray_session, pipeline_config, tmp_path
):
    """Shard 0's deals written as shard 1, with shard 1's metadata: every file proves itself,
    and the set still holds deals 0 and 1 twice and 2 and 3 never."""
    from sparring.poker.deal_generation import deal_spec
    from sparring.runtime.storage.datasets import read_table, write_table

    cfg = pipeline_config("handgen", *TINY, f"output_root={tmp_path}")
    directory = run(cfg)["output"].local_path()
    spec = deal_spec(4)
    meta = read_metadata(directory / "part-00001.parquet")
    extra = {
        k: v
        for k, v in meta.items()
        if k not in ("dataset", "schema_version", "config_hash", "seed")
    }
    write_table(
        read_table(directory / "part-00000.parquet", spec),
        directory / "part-00001.parquet",
        spec,
        config_hash=meta["config_hash"],
        seed=int(meta["seed"]),
        extra=extra,
    )
    with pytest.raises(
        DatasetError, match=r"deal ids are not 0\.\.5 once each \(deal 0 appears twice\)"
    ):
        load_deal_set(directory)


def test_training_and_heldout_sets_differ(ray_session, pipeline_config, tmp_path):
    a = run(pipeline_config("handgen", *TINY, f"output_root={tmp_path}"))["output"]
    b = run(pipeline_config("handgen", *TINY[:-1], "seed=4", f"output_root={tmp_path}"))["output"]
    assert a != b
    assert not np.array_equal(load_deal_set(a).board, load_deal_set(b).board)


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("table_size=11", "table_size=11 is not allowed: expected an integer in 2..10"),
        ("deals=0", "deals=0 is not allowed"),
        ("equity_trials=-1", "equity_trials=-1 is not allowed"),
        ("preflop.raise_factor=0", "preflop.raise_factor=0 is not allowed"),
        ("preflop.table=/nope.parquet", "expected an existing preflop_equity Parquet file"),
        ("output_root=/etc/hostname", "output_root=/etc/hostname is not allowed: expected a dir"),
    ],
)
def test_bad_config_is_refused_before_work(override, message):
    assert message in config_error("handgen", override)


def test_replay_prints_a_hand(ray_session, pipeline_config, tmp_path, capsys):
    directory = run(pipeline_config("handgen", *TINY, f"output_root={tmp_path}"))["output"]
    capsys.readouterr()
    assert (
        cli(["poker", "replay", "--deals", str(directory), "--deal", "3", "--rotation", "5"]) == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("deal 3, rotation 5: board ")
    assert "posts the small blind 1" in out and "net chips by player" in out
    assert cli(["poker", "replay", "--deals", str(directory), "--deal", "99"]) == 2
    assert "--deal 99: no such deal" in capsys.readouterr().err
    assert cli(["poker", "replay", "--deals", str(tmp_path / "nothing")]) == 2


def test_shards_a_driver_cannot_see_are_reported_in_one_line(
    ray_session, pipeline_config, tmp_path
):
    """What a local root on a cluster without a shared disk looks like from the driver: the
    tasks wrote their shards, but on other machines."""
    from sparring.frame.deal_set_store import check_visible
    from sparring.runtime.errors import UsageError
    from sparring.runtime.storage.location import locate

    cfg = pipeline_config("handgen", *TINY, f"output_root={tmp_path}")
    settings = cfg.deal_set
    run(cfg)
    check_visible(settings, locate(tmp_path), settings.shards)  # all here: nothing to say
    settings.shard_path(tmp_path, 1).delete()
    with pytest.raises(UsageError, match=r"1 of 3 shards written under .* not visible from this "
                       r"driver \(e\.g\. part-00001\).*use s3://"):  # fmt: skip
        check_visible(settings, locate(tmp_path), settings.shards)
    # on an object store the nodes share it already: the shard was removed, not unshared
    import pyarrow.fs as pafs

    from sparring.runtime.storage.location import Location

    store = Location(pafs.LocalFileSystem(), str(tmp_path), "s3")  # (its bytes on this disk)
    with pytest.raises(UsageError) as said:
        check_visible(settings, store, settings.shards)
    assert "removed from the store after they were written" in str(said.value)
    assert "use s3://" not in str(said.value)


def test_what_handgen_prints_is_what_it_did(ray_session, pipeline_config, tmp_path, capsys):
    cfg = pipeline_config(
        "handgen",
        "deals=40",
        "shard_size=50",
        "table_size=4",
        "equity_trials=40",
        f"output_root={tmp_path}",
    )
    metrics = run(cfg)["metrics"]
    out = capsys.readouterr().out
    assert "handgen: 40 deals in 1 shard" in out and "shards of 50" not in out
    cores = metrics["cpus"]
    assert metrics["deals_per_s_per_core"] == pytest.approx(metrics["deals_per_s"] / cores)
    assert metrics["deals_per_s_per_core"] <= metrics["deals_per_s"]
    # one shard on two cores: a working core is faster than the cluster's rate per core
    assert metrics["deals_per_task_s"] > metrics["deals_per_s_per_core"]


def test_the_throughput_figures_mean_what_their_names_say():
    from sparring.frame.deal_set_store import rates, shards_label

    # 40 deals (96,000 equity trials) in 10 s on 2 cores whose tasks worked 5 s in all
    assert rates(40, 96_000, 10.0, 5.0, 2) == {
        "deals_per_s": 4.0,
        "deals_per_s_per_core": 2.0,
        "deals_per_task_s": 8.0,
        "equity_trials_per_s_per_core": 4_800.0,
    }
    assert shards_label([(0, 0, 40)]) == "40 deals in 1 shard"
    assert shards_label([(0, 0, 50), (1, 50, 50), (2, 100, 20)]) == "120 deals in 3 shards"
    assert shards_label([]) == "0 deals in 0 shards"


def test_a_full_disk_is_one_line_no_orphan_digest_and_a_rerun_writes_only_the_rest(
    ray_session, pipeline_config, tmp_path
):
    """#27 item 9: ENOSPC while writing shards (a real, nearly full tmpfs)."""
    measured = run(pipeline_config("handgen", *TINY, f"output_root={tmp_path / 'measure'}"))
    shard_kib = max(p.stat().st_size for p in measured["output"].local_path().glob("*")) // 1024
    with small_disk(tmp_path / "disk", size_kib=1024, free_kib=shard_kib * 2 + 8) as disk:
        cfg = pipeline_config("handgen", *TINY, f"output_root={disk}")
        with pytest.raises(StorageError) as raised:
            run(cfg)
        line = one_line(raised.value)
        assert ".parquet: no space left on the device" in line and "needed" in line
        written = [p for p in disk.rglob("*") if p.is_file() and p.name != ".filler"]
        shards = {p.name for p in written if p.suffix == ".parquet"}
        digests = {p.name.removesuffix(".sha256") for p in written if p.suffix == ".sha256"}
        assert digests == shards and len(shards) < 3  # no digest of a shard that is not there
        assert not [p for p in written if p.name.endswith(".tmp")]
        (disk / ".filler").unlink()
        again = run(cfg)
        assert again["metrics"]["shards_reused"] == len(shards)
        assert again["metrics"]["shards_written"] == 3 - len(shards)
        assert load_deal_set(again["output"].local_path()).deal_id.tolist() == list(range(6))
