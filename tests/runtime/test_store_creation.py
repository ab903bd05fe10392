"""A new SQLite MLflow store is whole or absent (#27 item 7): a disk that fills while the store
is first created leaves no store, and a half-made store from before is refused in one line.

The full disk is a real tmpfs (``tests/helpers/disks.py``); the half-made store is the one MLflow
itself leaves when its migration runs out of space.
"""

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from sparring.launch.preflight import check_tracking
from sparring.runtime.explain import one_line
from sparring.runtime.tracking.runs import open_store
from sparring.runtime.tracking.sqlite_store import BrokenStore
from tests.helpers.disks import small_disk

TOUCH = (
    "from mlflow.tracking import MlflowClient; import sys; "
    "MlflowClient(tracking_uri=sys.argv[1]).search_experiments(max_results=1)"
)


@pytest.mark.parametrize("template", [False, True], ids=["migrated", "from-the-template"])
def test_a_disk_that_fills_during_creation_leaves_no_store_and_a_rerun_creates_it(
    tmp_path, monkeypatch, template
):
    """MLflow's migration, or the copy of the kept template (``store_template``), meets a full
    disk: one line that says so, no store left, and the same command makes it once there is
    room."""
    cache = tmp_path / "cache"  # no template yet, or one made here first
    monkeypatch.setenv("SPARRING_CACHE_DIR", str(cache))
    if template:
        open_store(f"sqlite:///{tmp_path / 'first.db'}")
        assert any(cache.glob("mlflow-*.db"))
    with small_disk(tmp_path / "disk", size_kib=2048, free_kib=400) as disk:  # a store: ~930 KiB
        uri = f"sqlite:///{disk / 'mlflow.db'}"
        with pytest.raises(Exception) as raised:
            open_store(uri)
        assert one_line(raised.value).startswith("the tracking store's disk is full")
        assert sorted(p.name for p in disk.iterdir()) == [".filler", "mlflow.db.lock"]
        (disk / ".filler").unlink()
        check_tracking(uri)
        client = open_store(uri)
        assert [e.name for e in client.search_experiments()] == ["Default"]


def test_a_half_made_store_is_refused_in_one_line_before_any_work(tmp_path):
    # What MLflow alone leaves when its migration of a new store is stopped by a full disk
    # twice (a disk too small for a whole store: 600 KiB against ~930): a table half copied.
    with small_disk(tmp_path / "disk", size_kib=600, free_kib=400) as disk:
        uri = f"sqlite:///{disk / 'mlflow.db'}"
        for _ in range(2):
            subprocess.run([sys.executable, "-c", TOUCH, uri], capture_output=True, check=False)
            (disk / ".filler").unlink(missing_ok=True)
        broken = tmp_path / "mlflow.db"
        shutil.copy(disk / "mlflow.db", broken)
    uri = f"sqlite:///{broken}"
    for attempt in (lambda: check_tracking(uri), lambda: open_store(uri)):
        with pytest.raises(BrokenStore) as raised:
            attempt()
        line = one_line(raised.value)
        assert "is a half-made MLflow store" in line and "holds no runs" in line
        assert f"mv {broken} {broken}.broken" in line and "\n" not in line
    # the recovery it names works
    broken.rename(tmp_path / "mlflow.db.broken")
    check_tracking(uri)
    assert MlflowClient(uri).search_experiments()[0].name == "Default"


REOPEN = """
import sys
from sparring.runtime.explain import one_line
from sparring.runtime.tracking.runs import open_store
try:
    open_store(sys.argv[1])
except Exception as exc:
    print(type(exc).__name__, one_line(exc))
"""


def _reopen(uri: str) -> str:
    """What ``open_store(uri)`` raises in a new process (MLflow migrates a store only on a
    process's first use of it): the exception's class and its one line."""
    done = subprocess.run(
        [sys.executable, "-c", REOPEN, uri], capture_output=True, text=True, timeout=120
    )
    return done.stdout.strip()


def _rolled_back(db: Path, *statements: str) -> str:
    """A whole store made at ``db`` by another process (this one holds no connection to it),
    its schema version set back to before the webhooks migration, then ``statements`` run;
    returns its URI."""
    uri = f"sqlite:///{db}"
    assert _reopen(uri) == ""
    with sqlite3.connect(db) as con:
        con.execute("update alembic_version set version_num = 'de4033877273'")
        for statement in statements:
            con.execute(statement)
    con.close()  # (a connection's with-block commits; it does not close)
    return uri


def test_a_migration_that_trips_over_a_half_done_one_is_refused_in_one_line(tmp_path):
    # The issue's own case: the store's version is from before the webhooks migration, whose
    # table is there already, and a later table is missing (so MLflow migrates on first use)
    db = tmp_path / "mlflow.db"
    uri = _rolled_back(db, "drop table secrets")
    line = _reopen(uri)
    assert (
        line.startswith("BrokenStore ")
        and "its migration fails" in line
        and "table webhooks already exists" in line
    )
    assert f"mv {db} {db}.broken" in line


def test_a_store_of_an_older_mlflow_is_one_line_naming_the_upgrade(tmp_path):
    uri = _rolled_back(tmp_path / "mlflow.db")
    line = _reopen(uri)
    assert (
        line.startswith("OutdatedStore ")
        and "made by an older MLflow" in line
        and f"mlflow db upgrade {uri}" in line
    )


HOLDER = """
import sqlite3, sys, time
con = sqlite3.connect(sys.argv[1])
print("open", flush=True)
sys.stdin.readline()  # the migration goes on until the test says
con.execute("drop table _alembic_tmp_tags")
con.commit()
"""


def mid_migration(db: Path) -> None:
    """A new store as alembic's batch mode leaves it in the middle of a migration."""
    with sqlite3.connect(db) as con:
        con.execute("create table experiments (id integer)")
        con.execute("create table alembic_version (version_num text)")
        con.execute("insert into alembic_version values ('de4033877273')")
        con.execute("create table _alembic_tmp_tags (id integer)")
    con.close()


def test_a_store_another_process_is_migrating_is_waited_for_not_refused(tmp_path):
    """Found by the suite: a driver's check ran while another process (an MLflow client
    outside Sparring's lock) migrated the new store, saw alembic's temporary table and refused
    a store that was only being made. A store another process holds open is waited for."""
    import threading

    db = tmp_path / "mlflow.db"
    uri = f"sqlite:///{db}"
    mid_migration(db)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline().strip() == "open"
    outcome: list[str] = []
    checker = threading.Thread(target=lambda: outcome.append(_checked(uri)), daemon=True)
    checker.start()
    checker.join(timeout=1.5)
    assert checker.is_alive() and outcome == []  # it waits while the other process works
    holder.communicate("done\n", timeout=30)  # the migration completes
    checker.join(timeout=10)
    assert outcome == ["ok"]
    # the same file, now held by no one, is refused at once
    with sqlite3.connect(db) as con:
        con.execute("create table _alembic_tmp_tags (id integer)")
    con.close()
    assert "is a half-made MLflow store" in _checked(uri)


def _checked(uri: str) -> str:
    try:
        check_tracking(uri)
    except BrokenStore as exc:
        return str(exc)
    return "ok"


def test_a_holder_that_finishes_between_the_look_and_the_check_is_not_refused(
    tmp_path, monkeypatch
):
    """Found with two test workers: the store looked half made, then its last holder finished
    the migration and let go before the check for holders, and the stale look was the verdict.
    The interleaving is forced here: the holder finishes inside that check."""
    from sparring.runtime.tracking import sqlite_store

    db = tmp_path / "mlflow.db"
    mid_migration(db)

    def finished_just_now(path):
        with sqlite3.connect(path) as done:
            done.execute("drop table _alembic_tmp_tags")
        done.close()
        return []

    monkeypatch.setattr(sqlite_store, "_held_open_by_others", finished_just_now)
    assert sqlite_store._settled_half_made(db, 60) is None


def _schema(db: Path) -> tuple[list, list, list]:
    """Its tables and indexes (each one's SQL as a sorted set of lines: MLflow's migrations
    write a table's constraints in an order that varies between two runs), schema version and
    experiments."""
    with sqlite3.connect(db) as con:
        rows = con.execute("select type, name, sql from sqlite_master").fetchall()
        tables = sorted(
            (kind, name, sorted(line.strip(" ,") for line in (sql or "").splitlines()))
            for kind, name, sql in rows
        )
        version = con.execute("select version_num from alembic_version").fetchall()
        experiments = con.execute(
            "select experiment_id, name, lifecycle_stage, workspace from experiments"
        ).fetchall()
        # every other table's rows whole (the workspace MLflow's migration adds, say)
        for kind, name, _ in sorted(rows):
            if kind == "table" and name not in ("experiments", "alembic_version"):
                experiments += [(name, *row) for row in con.execute(f'select * from "{name}"')]
    return tables, version, experiments


def test_a_store_made_from_the_template_is_the_store_mlflow_makes(tmp_path, monkeypatch):
    """The first new store is migrated by MLflow and kept as the template; the next is a copy
    of it with the same tables, schema version and Default experiment, whose artifacts go
    under its own directory (not the one the template was made in), and works as a store."""
    from mlflow.version import VERSION

    from sparring.runtime.tracking import store_template
    from sparring.runtime.tracking.runs import _first_use

    monkeypatch.setenv("SPARRING_CACHE_DIR", str(tmp_path / "cache"))
    made = {}
    for name in ("migrated", "copied"):
        (tmp_path / name).mkdir()
        monkeypatch.chdir(tmp_path / name)
        made[name] = store_template.make_store(tmp_path / name / "mlflow.db", _first_use, VERSION)
    assert made == {"migrated": False, "copied": True}
    assert store_template.template_path(VERSION).exists()
    migrated, copied = tmp_path / "migrated" / "mlflow.db", tmp_path / "copied" / "mlflow.db"
    assert _schema(copied) == _schema(migrated)
    assert _schema(copied)[2][0] == (0, "Default", "active", "default")
    assert ("workspaces", "default") in [row[:2] for row in _schema(copied)[2]]
    client = MlflowClient(f"sqlite:///{copied}")
    default = client.get_experiment("0")
    assert Path(default.artifact_location.removeprefix("file://")) == tmp_path / "copied/mlruns/0"
    assert client.create_experiment("next") == "1"  # as in a store MLflow made
    run = client.create_run("1").info.run_id
    client.log_param(run, "seed", "7")
    assert client.get_run(run).data.params == {"seed": "7"}


def test_a_template_mlflow_refuses_is_not_used_and_is_made_again(tmp_path, monkeypatch):
    """A template whose digest matches but whose schema this MLflow does not know (another
    version's, say): the store is migrated from nothing and the template made anew."""
    from mlflow.version import VERSION

    from sparring.runtime.storage.datasets import read_verified, write_with_digest
    from sparring.runtime.tracking import store_template
    from sparring.runtime.tracking.runs import _first_use

    monkeypatch.setenv("SPARRING_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    store_template.make_store(tmp_path / "first.db", _first_use, VERSION)
    template = store_template.template_path(VERSION)
    foreign = tmp_path / "foreign.db"
    shutil.copyfile(template, foreign)
    with sqlite3.connect(foreign) as con:
        con.execute("update alembic_version set version_num = 'f00dbeef0000'")
    write_with_digest(template, foreign.read_bytes())
    assert store_template.make_store(tmp_path / "second.db", _first_use, VERSION) is False
    assert _schema(tmp_path / "second.db") == _schema(tmp_path / "first.db")
    assert read_verified(template) is not None and _schema(template)[1] == _schema(
        tmp_path / "first.db"
    )[1]


def test_a_template_that_cannot_be_read_only_costs_the_time(tmp_path, monkeypatch):
    """A cache entry that is no readable file (here a directory under the template's name,
    with a digest beside it): the store is migrated as if there were no template."""
    from mlflow.version import VERSION

    from sparring.runtime.tracking import store_template
    from sparring.runtime.tracking.runs import _first_use

    monkeypatch.setenv("SPARRING_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    template = store_template.template_path(VERSION)
    template.mkdir(parents=True)
    template.with_name(template.name + ".sha256").write_text(f"{'0' * 64}  {template.name}\n")
    assert store_template.make_store(tmp_path / "mlflow.db", _first_use, VERSION) is False
    assert _schema(tmp_path / "mlflow.db")[2][0] == (0, "Default", "active", "default")


@pytest.fixture(scope="module")
def a_store(tmp_path_factory) -> Path:
    """A real MLflow store with a run in it (its schema made by MLflow itself)."""
    db = tmp_path_factory.mktemp("store") / "mlflow.db"
    client = open_store(f"sqlite:///{db}")
    run = client.create_run(client.create_experiment("e"))
    client.log_metric(run.info.run_id, "m", 1.0)
    return db


@pytest.mark.parametrize("keep", [0.5, 0.9])
def test_a_store_cut_short_is_one_line_before_any_work(tmp_path, a_store, keep):
    """``mlflow.db`` truncated (a full disk, a bad copy): one line naming it damaged, from a
    pipeline and from ``sparring results`` as users run them, instead of 80 lines of SQL; the
    whole store passes (the control)."""
    db = tmp_path / "mlflow.db"
    shutil.copyfile(a_store, db)
    check_tracking(f"sqlite:///{db}")  # whole: accepted
    with open(db, "r+b") as f:
        f.truncate(int(db.stat().st_size * keep))
    for argv in (
        [sys.executable, "-m", "sparring.cli", "results"],
        [sys.executable, str(Path(__file__).parents[2] / "pipelines" / "equity.py"), "trials=10"],
    ):
        done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=120)
        [line] = done.stderr.strip().splitlines()
        assert done.returncode == 2 and "mlflow.db is damaged (" in line, done.stderr[-2000:]
        assert "move it aside" in line


def test_a_store_another_process_holds_locked_is_one_line(tmp_path, a_store, monkeypatch):
    """An exclusive lock held by another process: one line after a few seconds, naming it
    locked (it was 18 s, then 109 lines of 'database is locked')."""
    from sparring.launch import preflight

    db = tmp_path / "mlflow.db"
    shutil.copyfile(a_store, db)
    from tests.helpers.commands import holding

    holder = holding(
        "import sqlite3, time\n"
        f"c = sqlite3.connect({str(db)!r}, isolation_level=None)\n"
        "c.execute('BEGIN EXCLUSIVE'); print('held', flush=True); time.sleep(60)"
    )
    try:
        monkeypatch.setattr(preflight, "LOCKED_WAIT_S", 0.5)
        with pytest.raises(Exception) as refused:
            check_tracking(f"sqlite:///{db}")
        said = one_line(refused.value)
        assert said is not None and "is locked by another process (waited 0.5 s)" in said
    finally:
        holder.kill()
        holder.wait()
    check_tracking(f"sqlite:///{db}")  # released: accepted
