"""``sparring submit`` as the cluster guide shows it, against a Ray head on this machine: the job
carries the checkout's code (the driver and every task import the shipped copy), records its
provenance, and a config that would lose its outputs is refused before anything is sent."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from sparring.launch.submit import prepare, shipped
from sparring.poker.preflop import PREFLOP_SPEC
from sparring.runtime.provenance import git_commit, git_dirty, lock_digest
from sparring.runtime.storage.datasets import read_table
from tests.helpers.commands import BIN, ROOT
from tests.helpers.docs import page, pages
from tests.helpers.services import _ray_start, free_port, own_ray_temp, stop_ray_node, wait_for

GUIDE_PORTS = ("6379", "8265", "52365")  # the head's GCS, dashboard and agent ports


def tryout_block() -> list[str]:
    """The cluster guide's try-out commands, one per line."""
    text = page("guides/cluster.md")
    block = text.split("<!-- submit-tryout:begin -->")[1].split("<!-- submit-tryout:end -->")[0]
    return [line for line in block.splitlines() if line and not line.startswith("```")]


def test_the_guides_tryout_runs_the_submitted_code_and_records_where_it_came_from(tmp_path):
    lines = tryout_block()
    exports = [line for line in lines if line.startswith("export ")]
    [head_line] = [line for line in lines if " ray start " in f" {line}"]
    [submit_line] = [line for line in lines if "sparring submit" in line]
    ports = {port: str(free_port()) for port in GUIDE_PORTS}

    def mapped(line: str) -> str:  # the guide's ports may be taken on a test machine
        return re.sub(r"\b(6379|8265|52365)\b", lambda m: ports[m.group(1)], line)

    # The commands run from "the checkout": a directory with the project's .venv in it.
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    # a fresh home, as on a fresh machine: no Ray token until the guide's first line makes one
    # (the caches stay this machine's: the kernels are compiled already)
    from sparring.runtime import caches

    env |= {"HOME": str(tmp_path / "home"), **caches.for_programs()}
    (tmp_path / "home").mkdir()
    with own_ray_temp(env) as env:  # its own ray_current_cluster: see own_ray_temp
        head = subprocess.Popen(
            ["bash", "-c", "; ".join([*exports, mapped(head_line)])],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own group: ended by PID below, never `ray stop`
        )
        try:
            wait_for(f"http://127.0.0.1:{ports['8265']}/api/version", 180)
            job = subprocess.run(
                ["bash", "-c", "; ".join([*exports, mapped(submit_line)])],
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
            )
        finally:
            stop_ray_node(head)
    said = job.stdout + job.stderr
    assert job.returncode == 0, said[-3000:]
    assert re.search(r"job \S+: SUCCEEDED", said)
    assert (tmp_path / "home" / ".ray" / "auth_token").exists()  # made by the guide's line

    table = read_table(tmp_path / "data" / "submitted" / "preflop.parquet", PREFLOP_SPEC)
    assert table.num_rows == 6  # 3 classes x 2 opponent counts
    client = MlflowClient(f"sqlite:///{tmp_path / 'mlflow.db'}")
    [run] = client.search_runs([client.get_experiment_by_name("equity").experiment_id])
    tags = run.data.tags
    assert run.info.status == "FINISHED"
    assert tags["git_commit"] == git_commit(ROOT) != "unknown"
    assert tags["git_dirty"] == git_dirty(ROOT)
    assert tags["submitted_config_hash"] == tags["config_hash"]
    assert tags["uv_lock_matches"] == "true" and lock_digest(ROOT / "uv.lock")
    assert tags["mlflow.source.type"] == "JOB"
    # The driver and the task workers imported sparring from the shipped package, not from the
    # checkout the editable install points at.
    code = tags["sparring_code"].split(",")
    assert code and all("runtime_resources" in c and c.endswith("sparring") for c in code), code
    assert str(ROOT / "src") not in tags["sparring_code"]


def test_a_tune_search_names_every_path_it_needs_at_once():
    done = subprocess.run(
        [str(BIN / "sparring"), "submit", "--address", "http://127.0.0.1:9", "tune",
         "hparams_search=ga_smoke"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    [line] = done.stderr.strip().splitlines()
    for path in ("storage=", "best_dir=null", "a trial's deals.root=",
                 "a trial's checkpoint_root="):  # fmt: skip
        assert path in line, line
    assert line.count("a submitted job runs in a temporary copy") == 1


@pytest.mark.parametrize(
    "overrides, says",
    [
        (["evolve"], "deals.root=data/deals is a relative path"),
        (
            ["evolve", "deals.root=s3://b/d", "checkpoint_root=ck"],
            "checkpoint_root=ck is a relative path",
        ),
        (
            ["equity", "output=/tmp/x.parquet", "tracking.uri=sqlite:///m.db"],
            "tracking.uri=sqlite:///m.db is a relative sqlite store",
        ),
        (
            ["equity", "output=/tmp/x.parquet", "tracking.uri=sqlite:////tmp/m.db"],
            "tracking.artifact_root=mlartifacts is a relative path",
        ),
        (["tune", "storage=/tmp/t"], "best_dir=null writes to conf/best"),
        (  # the trials write too: the tuned pipeline's config as a trial composes it
            ["tune", "hparams_search=ga_smoke", "storage=/tmp/t", "best_dir=/tmp/b"],
            "a trial's deals.root=data/deals is a relative path (for every trial: "
            "'++hparams_search.fixed={deals.root: /shared/path}')",
        ),
        (
            [
                "tune",
                "hparams_search=ga_smoke",
                "storage=/tmp/t",
                "best_dir=/tmp/b",
                "++hparams_search.fixed={deals.root: /tmp/d}",
            ],
            "a trial's checkpoint_root=data/checkpoints/evolve is a relative path",
        ),
        (
            ["league", "deals.root=/d", "checkpoint_root=/c"],
            "league.cache_dir=data/league/cache is a relative path",
        ),
        (["nope"], "pipeline=nope is not allowed: expected one of arena, compare, eleusis_bench"),
        (["evolve", "ga.population=1"], "ga.population=1 is not allowed"),
    ],
)
def test_what_would_be_lost_or_wrong_is_refused_before_anything_is_sent(overrides, says):
    """(A refusal names every path the job would lose, in one line: not one per attempt.)"""
    # a job server that does not exist: a refusal must come before any attempt to reach it
    done = subprocess.run(
        [str(BIN / "sparring"), "submit", "--address", "http://127.0.0.1:9", *overrides],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("sparring submit: error: ") and says in line, line


def test_a_dry_run_shows_the_job_with_the_cluster_defaults():
    done = subprocess.run(
        [
            str(BIN / "sparring"),
            "submit",
            "--dry-run",
            "evolve",
            "deals.root=s3://b/deals",
            "checkpoint_root=s3://b/ck",
            "ga.population=32",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(
        "exec python pipelines/evolve.py ray=cluster tracking=server deals.root=s3://b/deals "
        "checkpoint_root=s3://b/ck ga.population=32"
    )


def test_a_dry_run_of_a_pipeline_without_ray_adds_no_ray_group():
    done = subprocess.run(
        [str(BIN / "sparring"), "submit", "--dry-run", "compare", "output_dir=/tmp/c"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(
        "exec python pipelines/compare.py tracking=server output_dir=/tmp/c"
    )


def test_a_dry_run_lists_what_is_shipped_with_counts_sizes_and_the_largest_files():
    done = subprocess.run(
        [str(BIN / "sparring"), "submit", "--dry-run", "equity", "output=/tmp/x.parquet"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    [work] = [line for line in lines if line.startswith(f"working_dir {ROOT}: ")]
    [package] = [
        line for line in lines if line.startswith(f"py_modules {ROOT / 'src' / 'sparring'}: ")
    ]
    assert re.search(r": \d+ files, [\d.]+ (B|KiB|MiB)$", work) and re.search(r"files", package)
    after = lines[lines.index(package) + 1 : lines.index(package) + 6]
    # the package's five largest files, largest first, each its true size (the package data
    # among them while it is one of the five; the sources outgrew it)
    shipped = ROOT / "src" / "sparring"
    sizes = []
    for line in after:
        size, unit, name = line.split(maxsplit=2)
        scale = {"B": 1, "KiB": 1024, "MiB": 1 << 20}[unit]
        assert abs((shipped / name).stat().st_size - float(size) * scale) <= 0.05 * scale, line
        sizes.append(float(size) * scale)
    assert len(sizes) == 5 and sizes == sorted(sizes, reverse=True), after
    largest = max((f for f in shipped.rglob("*") if f.is_file() and "__pycache__" not in f.parts),
                  key=lambda f: f.stat().st_size)  # fmt: skip
    assert after[0].strip().endswith(str(largest.relative_to(shipped))), (after, largest)


# --- what is shipped ---------------------------------------------------------------------------


def _tracked(under: str = ".") -> set[Path]:
    out = subprocess.run(
        ["git", "ls-files", "-z", under], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return {ROOT / name for name in out.split("\0") if name and (ROOT / name).is_file()}


def test_the_shipped_trees_hold_the_package_data_and_every_tracked_file_and_no_store():
    job = prepare("handgen", ["output_root=/tmp/deals"])
    [work, package] = shipped(job.runtime_env)
    assert (work.kind, package.kind) == ("working_dir", "py_modules")
    data = ROOT / "src" / "sparring" / "poker" / "data"
    for name in ("preflop_equity.parquet", "preflop_equity.parquet.sha256"):
        assert data / name in package.files and data / name in work.files
    assert _tracked("src/sparring") <= set(package.files)
    assert _tracked() <= set(work.files), sorted(map(str, _tracked() - set(work.files)))[:5]
    # what is left out is the checkout's own: version control, environments, data and stores
    for top in (".git", ".venv", "data", "mlruns", "mlartifacts"):
        assert not any(p.is_relative_to(ROOT / top) for p in work.files), top
    assert not [
        p
        for p in work.files
        if p.parent == ROOT and p.name.endswith((".db", ".lock")) and p.name != "uv.lock"
    ]
    assert not [p for p in work.files if "__pycache__" in p.parts]


# --- jobs on a loopback head -------------------------------------------------------------------


@dataclass
class Head:
    dashboard: str  # http://127.0.0.1:<port>
    env: dict[str, str]  # what a client of the head needs (token auth, the project's PATH)


@pytest.fixture(scope="module")
def head(tmp_path_factory) -> Iterator[Head]:
    """A Ray head on loopback (token auth, 2 CPUs, the project's python first on PATH), ended
    by its process group afterwards (never `ray stop`)."""
    env = {
        **os.environ,
        "RAY_AUTH_MODE": "token",
        "RAY_USAGE_STATS_ENABLED": "0",
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
    }
    env.pop("RAY_ADDRESS", None)
    with own_ray_temp(env) as env:
        yield from _head(env, tmp_path_factory)


def _head(env: dict[str, str], tmp_path_factory) -> Iterator[Head]:
    dash = free_port()
    proc = _ray_start(
        [
            "--head",
            f"--port={free_port()}",
            "--num-cpus=2",
            "--node-ip-address=127.0.0.1",
            "--dashboard-host=127.0.0.1",
            f"--dashboard-port={dash}",
            f"--dashboard-agent-listen-port={free_port()}",
        ],
        env,
        tmp_path_factory.mktemp("head") / "head.log",
    )
    try:
        wait_for(f"http://127.0.0.1:{dash}/api/version", 180)
        yield Head(f"http://127.0.0.1:{dash}", env)
    finally:
        stop_ray_node(proc)


def _store(root: Path) -> list[str]:
    return [
        f"tracking.uri=sqlite:///{root / 'mlflow.db'}",
        f"tracking.artifact_root={root / 'art'}",
    ]


def _start_submit(head: Head, job_id: str, *args: str) -> subprocess.Popen:
    """``sparring submit`` of one job, following it to its end (its output on stdout)."""
    return subprocess.Popen(
        [
            str(BIN / "sparring"),
            "submit",
            "--address",
            head.dashboard,
            "--submission-id",
            job_id,
            *args,
        ],
        env=head.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _finished(proc: subprocess.Popen) -> subprocess.CompletedProcess:
    try:
        said, _ = proc.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, said, "")


def _submit(head: Head, job_id: str, *args: str) -> subprocess.CompletedProcess:
    return _finished(_start_submit(head, job_id, *args))


def _run_of(root: Path, experiment: str, job_id: str):
    client = MlflowClient(f"sqlite:///{root / 'mlflow.db'}")
    found = client.search_runs(
        [client.get_experiment_by_name(experiment).experiment_id],
        filter_string=f"tags.ray_job_id = '{job_id}'",
    )
    assert len(found) == 1, (experiment, job_id, found)
    return found[0]


def test_a_submitted_handgen_job_reads_the_shipped_package_data_and_links_its_job(head, tmp_path):
    job_id = f"handgen-{int(time.time())}"
    done = _submit(
        head,
        job_id,
        "handgen",
        "deals=20",
        "shard_size=10",
        "equity_trials=50",
        f"output_root={tmp_path / 'deals'}",
        *_store(tmp_path),
    )
    said = done.stdout + done.stderr
    assert done.returncode == 0 and f"job {job_id}: SUCCEEDED" in said, said[-3000:]
    [made] = [p for p in (tmp_path / "deals").iterdir() if p.is_dir()]
    assert len(list(made.glob("part-*.parquet"))) == 2
    run = _run_of(tmp_path, "handgen", job_id)
    assert run.info.status == "FINISHED" and run.data.tags["mlflow.source.type"] == "JOB"
    assert f"Ray job: {head.dashboard}/#/jobs/{job_id}" in said
    # the same submission id again: one line with the first job's status, nothing submitted
    again = _submit(head, job_id, "handgen", "deals=20", f"output_root={tmp_path / 'deals'}",
                    *_store(tmp_path))  # fmt: skip
    assert again.returncode == 0, again.stdout[-3000:]
    assert f"job {job_id} was already submitted (status SUCCEEDED): not submitted again" in (
        again.stdout
    )
    assert "Traceback" not in again.stdout and len(again.stdout.splitlines()) <= 3
    assert _run_of(tmp_path, "handgen", job_id).info.run_id == run.info.run_id  # still one


def _plain_job(head, tmp_path: Path, job_id: str, *pipeline: str) -> subprocess.CompletedProcess:
    """``ray job submit --working-dir <a copy of the checkout> -- python <pipeline...>``.

    A checkout of its own (the tracked files): Ray hashes a working_dir twice, once to name
    its package and once while uploading it, and a file another test process writes under
    this checkout in between leaves the job naming a package that was never uploaded."""
    checkout = tmp_path / "checkout"
    for source in _tracked():
        target = checkout / source.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    return subprocess.run(
        [str(BIN / "ray"), "job", "submit", "--address", head.dashboard, "--submission-id",
         job_id, "--working-dir", str(checkout), "--", "python", *pipeline],
        cwd=checkout, env=head.env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def test_a_plain_ray_job_submit_with_relative_outputs_is_one_line_naming_them(head, tmp_path):
    """Its defaults would write into the job's temporary directory (outputs and mlflow.db) and
    link a run nobody can open: refused in one line that names every key to set."""
    done = _plain_job(head, tmp_path, f"lost-{int(time.time())}", "pipelines/equity.py",
                      "ray=local", "trials=200", "classes=[AA]", "opponents=[1]")  # fmt: skip
    said = done.stdout + done.stderr
    assert done.returncode != 0 and "failed" in said.lower(), said[-2500:]
    [line] = {x for x in said.splitlines() if x.startswith("error: ")}  # (Ray repeats the log)
    for key in ("output=", "tracking.uri=sqlite:///mlflow.db", "tracking.artifact_root="):
        assert key in line, line
    assert "a submitted job runs in a temporary copy" in line and "Traceback" not in said


def test_a_plain_ray_job_submit_with_ray_local_joins_the_jobs_cluster(head, tmp_path):
    job_id = f"plain-{int(time.time())}"
    done = _plain_job(head, tmp_path, job_id, "pipelines/equity.py", "ray=local", "trials=200",
                      "classes=[AA]", "opponents=[1]", f"output={tmp_path / 'eq.parquet'}",
                      *_store(tmp_path))  # fmt: skip
    said = done.stdout + done.stderr
    # (the job's own lines are on stdout, Ray's packaging logs on stderr: a tail of each)
    assert done.returncode == 0 and "succeeded" in said, done.stdout[-2500:] + done.stderr[-800:]
    assert "Traceback" not in said and "RuntimeEnvSetupError" not in said
    assert read_table(tmp_path / "eq.parquet", PREFLOP_SPEC).num_rows == 1
    run = _run_of(tmp_path, "equity", job_id)
    assert run.info.status == "FINISHED"
    assert f"Ray job: {head.dashboard}/#/jobs/{job_id}" in said


# Every pipeline `make run` runs, with the Makefile's tiny settings (or smaller) and every output
# on an absolute path under the test's directory ({out}); the last field is an output it leaves.
MAKE_RUN = [
    ("equity", ["trials=1000", "output={out}/preflop.parquet"], "preflop.parquet"),
    (
        "evolve",
        ["ga.population=8", "ga.generations=2", "deals.train=30", "deals.heldout=60"],
        "ck/evolve",
    ),
    (
        "validate",
        [
            "seeds=2",
            "hands=[25,50]",
            "reference_hands=500",
            "drift.runs=2",
            "match.games=10",
            "match.series=1",
            "output={out}/validate.parquet",
        ],
        "validate.parquet",
    ),
    (
        "flagbots_bench",
        ["depths=[1,2]", "time_s=0.2", "match.seeds=1", "output_dir={out}/flagbots_bench"],
        "flagbots_bench",
    ),
    (
        "eleusis_bench",
        ["seeds=2", "cap=5000", "scientists=[frequency,oracle]", "output={out}/eleusis.parquet"],
        "eleusis.parquet",
    ),
    (
        "retrain",
        [
            "ga.population=8",
            "ga.generations=2",
            "deals.train=30",
            "deals.heldout=60",
            "retrain.checkpoint_root={out}/ck/retrain",
            "league.cache_dir={out}/league",
        ],
        "ck/retrain",
    ),
    (
        "league",
        ["deals.heldout=60", "league.bootstrap=20", "league.cache_dir={out}/league"],
        "league",
    ),
    (
        "compare",
        ["experiment=evolve", "metric=champion_bb100", "output_dir={out}/compare"],
        "compare",
    ),
    (
        "tune",
        [
            "hparams_search=ga_smoke",
            "trials=2",
            "concurrency=1",
            "storage={out}/tune",
            "best_dir={out}/best",
            "++hparams_search.fixed={{deals.root: {out}/deals, checkpoint_root: {out}/ck/tune}}",
        ],
        "best",
    ),
]
# Where the GA pipelines keep deals and checkpoints (their Makefile steps use the defaults).
GA_PATHS = ["deals.root={out}/deals", "checkpoint_root={out}/ck/evolve"]


def _runs_of_job(root: Path, job_id: str) -> list:
    client = MlflowClient(f"sqlite:///{root / 'mlflow.db'}")
    ids = [e.experiment_id for e in client.search_experiments()]
    return client.search_runs(ids, filter_string=f"tags.ray_job_id = '{job_id}'")


# The pipelines that read package data (deals from the shipped preflop table) and one of each
# other kind (a body without Ray, a Ray Tune search) run in every test run; the rest (plain Ray
# maps to Parquet, like the equity job above) with the slow tests. Handgen is the job of
# test_a_submitted_handgen_job_reads_the_shipped_package_data_and_links_its_job. Together: all
# of `make run`. The jobs of a wave are submitted at once (as users share a cluster); a wave
# starts when the one before has ended, as the steps it reads from come first in `make run`.
PACKAGE_DATA_AND_KINDS = [["evolve"], ["retrain", "tune"], ["league", "compare"]]
REST = [["equity", "validate", "flagbots_bench", "eleusis_bench"]]


def test_the_submitted_sequences_cover_every_pipeline_of_make_run():
    makefile = (ROOT / "Makefile").read_text().split("\nrun:", 1)[1].split("\n\n", 1)[0]
    ran = set(re.findall(r"pipelines/(\w+)\.py", makefile)) | {"tune"}  # tune: `sparring tune`
    waves = [*PACKAGE_DATA_AND_KINDS, *REST]
    submitted = [name for wave in waves for name in wave]
    assert len(submitted) == len(set(submitted))
    assert ran == {name for name, _, _ in MAKE_RUN} | {"handgen"} == {*submitted, "handgen"}


def _check_job(head: Head, tmp_path: Path, pipeline: str, job_id: str, done) -> None:
    """A submitted make-run step succeeded (a retrain that kept its champion included: a
    decision, not a failure), linked its runs to its job and left its output."""
    said = done.stdout + done.stderr
    runs = _runs_of_job(tmp_path, job_id)
    assert runs or pipeline == "compare", (pipeline, said[-3000:])  # compare records none
    assert done.returncode == 0 and f"job {job_id}: SUCCEEDED" in said, said[-3000:]
    if pipeline == "retrain":  # the retrain run itself, not the evolve run of its challenger
        (retrain_run,) = [r for r in runs if r.data.tags.get("pipeline") == "retrain"]
        assert retrain_run.data.tags.get("decision") in ("kept", "promoted")
    assert all(r.info.status == "FINISHED" for r in runs), (pipeline, runs)
    if pipeline == "tune":  # its trials' checkpoints where the submission put them
        assert any((tmp_path / "ck" / "tune").iterdir()), said[-3000:]
    made = tmp_path / next(leaves for name, _, leaves in MAKE_RUN if name == pipeline)
    assert made.exists() and (made.is_file() or any(made.iterdir())), (pipeline, made)
    # compare opens no Ray, so it knows no dashboard
    assert f"Ray job: {head.dashboard}/#/jobs/{job_id}" in said or pipeline == "compare"


@pytest.mark.parametrize(
    "waves",
    [
        pytest.param(PACKAGE_DATA_AND_KINDS, id="package-data-and-kinds"),
        pytest.param(REST, id="rest", marks=pytest.mark.slow),
    ],
)
def test_pipelines_of_make_run_run_as_submitted_jobs_with_absolute_outputs(head, tmp_path, waves):
    stamp = int(time.time())
    steps = {name: args for name, args, _ in MAKE_RUN}
    for wave in waves:
        started = {}
        for pipeline in wave:
            extra = GA_PATHS if pipeline in ("evolve", "retrain", "league") else []
            given = [a.format(out=tmp_path) for a in [*steps[pipeline], *extra]]
            job_id = f"{pipeline}-{stamp}"
            proc = _start_submit(head, job_id, pipeline, *given, *_store(tmp_path))
            started[pipeline] = (job_id, proc)
        for pipeline, (job_id, proc) in started.items():
            _check_job(head, tmp_path, pipeline, job_id, _finished(proc))


# a `sparring submit` command as a page's code block or --help's examples write it
COMMAND_LINE = re.compile(r"\s*(?:\$ )?(?:\.venv/bin/)?sparring submit ")


def _code(text: str) -> str:
    """The lines of a Markdown text's fenced code blocks (the commands; prose is not one)."""
    lines, inside = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            inside = not inside
        elif inside:
            lines.append(line)
    return "\n".join(lines)


def documented_submissions() -> list[list[str]]:
    """Every ``sparring submit`` command in the code blocks of README.md and the site's pages
    (the cluster guide's, retraining's, ...) and of ``sparring submit --help``, once each, as
    argument lists (continuation lines joined, ``$(date +%F)`` and ``$PWD`` filled in)."""
    import re
    import shlex

    from sparring.cli.submit import DESCRIPTION

    texts = [*(_code(doc.read_text()) for doc in pages()), DESCRIPTION]
    commands = []
    for text in texts:
        joined = re.sub(r"\\\n\s*", " ", text.replace("\\\\\n", "\\\n"))
        for line in joined.splitlines():
            if not COMMAND_LINE.match(line):  # (not `usage: sparring submit [-h] ...`)
                continue
            line = line.split("sparring submit ", 1)[1].split("`")[0]
            line = line.replace("$(date +%F)", "2026-12-06").replace("$PWD", str(ROOT))
            args = shlex.split(line, comments=True)
            if args not in commands:  # (a command on two pages is checked once)
                commands.append(args)
    return commands


def test_every_documented_submission_passes_the_checks_as_written():
    """The pages' and --help's `sparring submit` commands, as pasted (with --dry-run: nothing
    is sent), are accepted: a documented command never meets a refusal."""
    found = documented_submissions()
    assert len(found) >= 4, found
    for args in found:
        args = [a for a in args if a != "--no-wait"]
        done = subprocess.run(
            [str(BIN / "sparring"), "submit", "--dry-run", *args],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, (args, done.stderr[-2000:])
