"""Fingerprint the outputs of ``make run`` to prove that a refactor changes no behaviour.

Contract
--------
``record`` reads an MLflow store and a data directory and writes one canonical JSON file (sorted
keys, no ids, no times, no machine paths); ``compare`` diffs two such files. Two ``make run``
invocations of the same code on the same seeds must give the same fingerprint, and a refactor
that changes no behaviour must too::

    python benchmarks/fingerprint.py record --store sqlite:////abs/mlflow.db --data /abs/data \\
        -o before.json
    # ... refactor; remove mlflow.db, mlartifacts/ and data/ (caches change what is logged:
    # shards_reused, pairs_cached; a retrain id already decided logs no run); make run again ...
    python benchmarks/fingerprint.py record --store sqlite:////abs/mlflow.db --data /abs/data \\
        -o after.json
    python benchmarks/fingerprint.py compare before.json after.json   # exit 0 identical, 1 not

What is recorded:

* every run of every experiment (active and deleted, nested runs included), under a stable key
  (see ``run_keys``): its status, name (dates removed), params (all), metrics (the latest value
  of each and the full ``(step, value)`` history of any metric logged at a step other than 0 or
  more than once), tags that describe results, and its dataset inputs (name, digest, source with
  the data root replaced, profile, context);
* every registered model: its aliases and versions (status, the key of the source run, tags);
* every Parquet file under ``--data``: its path relative to ``--data``, row count, Arrow schema,
  ``sparring.*`` file metadata and a SHA-256 of its content (the Arrow IPC stream of the table,
  chunks combined, file metadata dropped, noisy columns dropped), and every ``.sha256`` sidecar.

What is left out is listed in ``NOISY_NAMES`` (metric / tag / column names), ``DROPPED_TAGS``,
``DROPPED_PARAMS`` and ``SCRUBBED_TEXT`` (parts of values) below, one reason per entry. Values
matching ``KNOWN_UNSTABLE`` are kept, but ``compare`` labels their differences (they depend on
the machine's speed, the date or Ray's scheduling) and ``--lenient`` does not fail on them.

The script imports only the standard library, ``mlflow`` and ``pyarrow`` (never ``sparring``) so
any checkout, old or new, can run it.
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import math
import re
import socket
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

FORMAT = "sparring-fingerprint/1"

# --- what is left out --------------------------------------------------------------------------
# Metric names, tag keys and Parquet column names matching one of these (fnmatch, case-insensitive)
# are not recorded. A pattern without "/" is tried on the name's last "/"-separated part (the
# quantity: "start/full/d3/nps" -> "nps"; never a position such as "wall_start"), one with "/" on
# the whole name. Params are not filtered by these: a param is configuration (``time_s=0.5`` is
# an input, not a timing).
NOISY_NAMES: dict[str, str] = {
    "*_s": "a duration in seconds (wall_s, evaluate_s)",
    "*per_s*": "a throughput (hands_per_s, deals_per_s, guesses_per_s, trials_per_s_per_core)",
    "*per_min*": "a throughput (generations_per_min)",
    "*_per_core*": "a throughput per CPU core",
    "wall*": "wall-clock time",
    "elapsed*": "wall-clock time",
    "*time*": "a time or timestamp",
    "nps*": "nodes searched per second (<position>/<searcher>/d<n>/nps)",
    "*seconds*": "a duration (the seconds column of search_nodes)",
    "*duration*": "a duration",
    "nps_*/*": "flagbots_bench: nodes per second from the start (nps_start/<searcher>)",
    "depth_in_*s/*": "flagbots_bench: the depth a searcher completes within a wall-clock budget",
    "cpus": "equity: the CPU count of the machine that ran it",
    "nodes_used": "how many Ray nodes ran a run's tasks: the cluster's shape, not a result",
}

# Tags (run tags, model and version tags) dropped by key, beyond NOISY_NAMES.
DROPPED_TAGS: dict[str, str] = {
    "mlflow.runName": "recorded (dates removed) as the run's name",
    "mlflow.user": "the user who ran it",
    "mlflow.source.git.commit": "the code's commit: changes with every refactor",
    "git_commit": "the code's commit",
    "git_dirty": "whether the checkout had uncommitted changes",
    "mlflow.parentRunId": "a run id: nesting is in the run's key",
    "mlflow.log-model.history": "artifact paths and timestamps",
    "mlflow.loggedArtifacts": "artifact paths",
    "sparring.driver": "host:pid:start of the driver process",
    "sparring_code": "the directories sparring was imported from (the checkout's path)",
    "ray_nodes": "Ray node ids",
    "tune_trial": "Ray Tune's random trial id (the trial number is kept)",
    "league_run": "a run id (model version tag)",
    "claim.driver": "host:pid of a claim holder",
    "claim.since": "when a claim was taken",
    "claim.run_id": "a run id",
    "uv_lock_matches": "the environment of a submitted job's cluster",
    "submitted_config_hash": "only on a submitted job",
}

# Params dropped by key (none of make run's params is noise today; tracking.* is never logged).
DROPPED_PARAMS: dict[str, str] = {}

# Parts of every recorded text value (params, tags, names, dataset sources, paths) replaced by a
# placeholder; the data root and the store's directory are added at run time (longest first).
SCRUBBED_TEXT: dict[str, tuple[str, str]] = {
    r"\b\d{8}-\d{6}\b": ("<datetime>", "search and sweep ids: make-run-$(date +%Y%m%d-%H%M%S)"),
    r"\b\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?: ?UTC|Z|[+-]\d{2}:?\d{2})?": (
        "<datetime>",
        "a timestamp",
    ),
    r"\b\d{4}-\d{2}-\d{2}\b": ("<date>", "retrain ids default to today's date"),
    r"/tmp/[^\s'\",\]]*": ("<tmp>", "a temporary directory"),
    r"\bdriver [\w.-]+:\d+:\d*": ("driver <host:pid:start>", "a driver process (host, pid)"),
}

# Kept and compared, but a difference is labelled as expected run-to-run variation (and does not
# fail with --lenient). Matched (fnmatch) against "<run key> :: <kind> <name>" (kind: param,
# metric, history, tag; status, name), "registry <model> :: model", and for a dataset file
# "<run key> :: input <relative path>" when a single run logged it as an input, else
# "dataset <relative path>".
KNOWN_UNSTABLE: dict[str, str] = {
    # sparring tune hparams_search=ga_smoke trials=4 concurrency=2: ASHA (grace 2 of 6
    # generations) stops a trial by how the 2 concurrent trials' reports interleave (their speed)
    "evolve/*tune.py#* > * :: status": "ASHA: a stopped trial is KILLED, a finished one not",
    "evolve/*tune.py#* > * :: tag trial_state": "ASHA: finished or stopped by report order",
    "evolve/*tune.py#* > * :: tag sparring.stopped_by": "ASHA: the step it was stopped at",
    "evolve/*tune.py#* > * :: tag sparring.ended_by": "a stopped trial's run may be closed as an "
    "orphan by whichever trial starts next (a race; names that trial)",
    "evolve/*tune.py#* > * :: metric *": "ASHA: a stopped trial logs fewer generations, no "
    "champion_bb100*",
    "evolve/*tune.py#* > * :: history *": "ASHA: a stopped trial logs fewer generations",
    "evolve/*tune.py#? :: metric trials_*": "ASHA: how many trials finished or were stopped",
    "evolve/*tune.py#? :: metric best_*": "ASHA: which trials finished",
    "evolve/*tune.py#? :: tag best_trial": "ASHA: which trials finished",
    "evolve/*tune.py#? :: *trial_objective": "ASHA: a stopped trial's objective is partial",
    "evolve/*tune.py#? :: metric importance/*": "Optuna's fANOVA importances use an unseeded "
    "random forest (and the ASHA-dependent finished trials)",
    # pipelines/retrain.py with retrain.id=null: the id is today's date and the training deals'
    # seed is derived from it: another day, other deals, challenger, edge and maybe decision
    "retrain/* :: *": "seeded from the retrain id = today's date (UTC)",
    "registry * :: *": "a retrain promotes or not depending on the date (new version, alias)",
    "league/* :: *": "its entrants are the registered versions (a date-dependent retrain may "
    "add one)",
    # handgen output_root=file://$(CURDIR)/data/deals: the absolute root is part of its config
    "handgen/* :: tag config_hash": "hashes output_root=file://<checkout>/data/deals",
    "handgen/* :: name": "holds the config hash, which hashes the checkout's path",
}

# -----------------------------------------------------------------------------------------------

Scrubber = Callable[[str], str]


def noisy(name: str) -> bool:
    """Whether a metric / tag / column ``name`` matches ``NOISY_NAMES``."""
    lowered = name.lower()
    last = lowered.rsplit("/", 1)[-1]
    return any(
        fnmatch.fnmatchcase(lowered if "/" in pattern else last, pattern) for pattern in NOISY_NAMES
    )


def make_scrubber(roots: dict[str, str], run_keys: dict[str, str]) -> Scrubber:
    """A function replacing the ``roots`` (placeholder -> absolute path), the run ids (by their
    keys) and ``SCRUBBED_TEXT`` in a text value."""
    literal: list[tuple[str, str]] = []
    for placeholder, root in roots.items():
        resolved = str(Path(root).resolve())
        for form in {root.rstrip("/"), resolved}:
            literal += [(Path(form).as_uri(), placeholder), (form, placeholder)]
    literal.sort(key=lambda pair: -len(pair[0]))
    ids = sorted(run_keys, key=len, reverse=True)
    id_pattern = re.compile("|".join(re.escape(i) for i in ids)) if ids else None
    patterns = [(re.compile(p), text) for p, (text, _) in SCRUBBED_TEXT.items()]
    # this machine's name where it names a process (host:pid), e.g. in a Ray or driver id
    host = re.escape(socket.gethostname())
    patterns.append((re.compile(rf"(?<![\w.-]){host}:\d+(?::\d*)?"), "<host:pid>"))

    def scrub(value: str) -> str:
        for old, new in literal:
            value = value.replace(old, new)
        if id_pattern is not None:
            value = id_pattern.sub(lambda m: f"<run {run_keys[m.group(0)]}>", value)
        for pattern, text in patterns:
            value = pattern.sub(text, value)
        return value

    return scrub


def number(value: float) -> float | str:
    """A metric value as JSON can hold it exactly (non-finite values as text)."""
    value = float(value)
    return value if math.isfinite(value) else str(value)


# --- MLflow ------------------------------------------------------------------------------------


def _pages(fetch: Callable[[str | None], Any]) -> Iterator[Any]:
    token: str | None = None
    while True:
        page = fetch(token)
        yield from page
        token = page.token
        if not token:
            return


def run_keys(runs_by_experiment: dict[str, list[Any]]) -> dict[str, str]:
    """A key per run id, the same for the same run of two ``make run``s.

    A top-level run: ``<experiment>/<mlflow.source.name>#<n>``, n its 1-based ordinal among the
    top-level runs of that experiment and source by start time. A nested run:
    ``<parent key> > <source> trial <trial_number>`` (a search's trial: Tune numbers them in the
    order its searcher suggests, whatever order they start in) or ``<parent key> > <source>#<n>``
    (n among its siblings of that source by start time)."""
    keys: dict[str, str] = {}
    for experiment, runs in runs_by_experiment.items():
        children: dict[str | None, list[Any]] = defaultdict(list)
        ids = {r.info.run_id for r in runs}
        for run in runs:
            parent = run.data.tags.get("mlflow.parentRunId")
            children[parent if parent in ids else None].append(run)
        _name_runs(keys, children, experiment, None, children[None])
        for run in runs:  # unreachable from a top-level run (a cycle): keyed by its name
            if run.info.run_id not in keys:
                keys[run.info.run_id] = f"{experiment}/orphan {run.info.run_name}"
    return keys


def _name_runs(
    keys: dict[str, str],
    children: dict[str | None, list[Any]],
    experiment: str,
    parent_key: str | None,
    siblings: list[Any],
) -> None:
    seen: dict[str, int] = defaultdict(int)
    ordered = sorted(siblings, key=lambda r: (r.info.start_time or 0, r.info.run_name or ""))
    for run in ordered:
        source = run.data.tags.get("mlflow.source.name", "?")
        trial = run.data.tags.get("trial_number")
        if parent_key is not None and trial is not None:
            key = f"{parent_key} > {source} trial {trial}"
            seen[key] += 1
            if seen[key] > 1:  # a trial rerun after an interrupted search
                key += f"#{seen[key]}"
        else:
            seen[source] += 1
            head = parent_key + " > " if parent_key else f"{experiment}/"
            key = f"{head}{source}#{seen[source]}"
        keys[run.info.run_id] = key
        _name_runs(keys, children, experiment, key, children.get(run.info.run_id, []))


def _history(client: Any, run_id: str, metric: str) -> list[list[float | str]]:
    points = client.get_metric_history(run_id, metric)
    ordered = sorted(points, key=lambda m: (m.step, m.timestamp, float(m.value)))
    return [[int(m.step), number(m.value)] for m in ordered]


def _tags(tags: dict[str, str], scrub: Scrubber) -> dict[str, str]:
    return {
        k: scrub(v)
        for k, v in sorted(tags.items())
        if k not in DROPPED_TAGS and not noisy(k) and not k.startswith("mlflow.note")
    }


def _inputs(run: Any, scrub: Scrubber) -> list[dict[str, Any]]:
    found = []
    for item in getattr(run.inputs, "dataset_inputs", None) or []:
        ds = item.dataset
        found.append(
            {
                "name": ds.name,
                "digest": ds.digest,
                "source_type": ds.source_type,
                "source": scrub(ds.source or ""),
                "profile": scrub(ds.profile or ""),
                "tags": {t.key: scrub(t.value) for t in item.tags},
            }
        )
    return sorted(found, key=lambda d: json.dumps(d, sort_keys=True))


def record_store(store: str, scrub_roots: dict[str, str]) -> tuple[dict[str, Any], dict]:
    """(runs by key, registered models) of the MLflow store at ``store``."""
    from mlflow.entities import ViewType
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=store, registry_uri=store)
    experiments = list(
        _pages(
            lambda t: client.search_experiments(
                view_type=ViewType.ALL, max_results=1000, page_token=t
            )
        )
    )
    runs_by_experiment: dict[str, list[Any]] = {}
    for exp in experiments:
        runs_by_experiment[exp.name] = list(
            _pages(
                lambda t, e=exp: client.search_runs(
                    [e.experiment_id], run_view_type=ViewType.ALL, max_results=1000, page_token=t
                )
            )
        )
    keys = run_keys(runs_by_experiment)
    scrub = make_scrubber(scrub_roots, keys)
    runs: dict[str, Any] = {}
    for experiment, exp_runs in runs_by_experiment.items():
        for run in exp_runs:
            key = keys[run.info.run_id]
            metrics: dict[str, Any] = {}
            history: dict[str, Any] = {}
            for name, value in sorted(run.data.metrics.items()):
                if noisy(name):
                    continue
                metrics[name] = number(value)
                points = _history(client, run.info.run_id, name)
                if len(points) > 1 or any(step != 0 for step, _ in points):
                    history[name] = points
            if key in runs:
                raise SystemExit(f"two runs with the key {key!r}: refine run_keys")
            runs[key] = {
                "experiment": experiment,
                "name": scrub(run.info.run_name or ""),
                "status": run.info.status,
                "lifecycle": run.info.lifecycle_stage,
                "params": {
                    k: scrub(v)
                    for k, v in sorted(run.data.params.items())
                    if k not in DROPPED_PARAMS
                },
                "metrics": metrics,
                "history": history,
                "tags": _tags(run.data.tags, scrub),
                "inputs": _inputs(run, scrub),
            }
    models: dict[str, Any] = {}
    for model in _pages(lambda t: client.search_registered_models(max_results=1000, page_token=t)):
        versions = {}
        for v in _pages(
            lambda t, m=model: client.search_model_versions(
                f"name = '{m.name}'", max_results=1000, page_token=t
            )
        ):
            versions[str(v.version)] = {
                "status": v.status,
                "run": keys.get(v.run_id or "", scrub(v.run_id or "")),
                "tags": _tags(dict(v.tags or {}), scrub),
                "description": scrub(v.description or ""),
            }
        aliases = getattr(model, "aliases", None) or {}
        models[scrub(model.name)] = {
            "aliases": dict(sorted(aliases.items())),
            "tags": _tags(dict(model.tags or {}), scrub),
            "description": scrub(model.description or ""),
            "versions": dict(sorted(versions.items(), key=lambda kv: int(kv[0]))),
        }
    return dict(sorted(runs.items())), dict(sorted(models.items()))


# --- Parquet -----------------------------------------------------------------------------------


def table_digest(table: pa.Table) -> str:
    """SHA-256 of the table's Arrow IPC stream (chunks combined, schema metadata dropped)."""
    table = table.replace_schema_metadata(None).combine_chunks()
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return hashlib.sha256(sink.getvalue().to_pybytes()).hexdigest()


def _users(runs: dict[str, Any]) -> dict[str, list[str]]:
    """Relative path under <data> -> "<run key> (<context>)" of the runs that logged it."""
    users: dict[str, list[str]] = defaultdict(list)
    for key, run in runs.items():
        for item in run["inputs"]:
            try:
                uri = str(json.loads(item["source"]).get("uri", ""))
            except (ValueError, AttributeError):
                continue
            if uri.startswith("<data>/"):
                context = item["tags"].get("mlflow.data.context", "?")
                users[uri[len("<data>/") :].rstrip("/")].append(f"{key} ({context})")
    return users


def record_data(
    data: Path, scrub: Scrubber, users: dict[str, list[str]]
) -> tuple[dict[str, Any], dict[str, str]]:
    """(Parquet files by relative path, sidecar contents by relative path) under ``data``;
    ``users`` (see ``_users``) name the runs that logged a file or its directory as an input."""
    files: dict[str, Any] = {}
    timed: set[str] = set()
    for path in sorted(data.rglob("*.parquet")):
        rel = scrub(path.relative_to(data).as_posix())
        table = pq.read_table(path)
        dropped = [c for c in table.column_names if noisy(c)]
        raw = table.schema.metadata or {}
        meta = {
            k.decode(): scrub(v.decode(errors="replace"))
            for k, v in sorted(raw.items())
            if k.startswith(b"sparring.")
        }
        sidecar = path.with_name(path.name + ".sha256")
        matches = None
        if sidecar.exists():
            words = sidecar.read_text().split()
            matches = bool(words) and words[0] == hashlib.sha256(path.read_bytes()).hexdigest()
        files[rel] = {
            "rows": table.num_rows,
            "schema": [f"{f.name}: {f.type}" for f in table.schema],
            "metadata": meta,
            "noisy_columns": dropped,
            "content_sha256": table_digest(table.drop_columns(dropped)),
            "sidecar_matches_bytes": matches,
            "used_by": sorted(
                {u for where, found in users.items() for u in found if _under(rel, where)}
            ),
        }
        if dropped:
            timed.add(sidecar.as_posix())
    sidecars: dict[str, str] = {}
    for path in sorted(data.rglob("*.sha256")):
        rel = scrub(path.relative_to(data).as_posix())
        # the file's bytes hold timings: its SHA-256 differs run to run (content_sha256 does not)
        text = "<bytes hold timings>" if path.as_posix() in timed else path.read_text().strip()
        sidecars[rel] = scrub(text)
    return files, sidecars


def _under(rel: str, where: str) -> bool:
    return rel == where or rel.startswith(where + "/")


# --- record and compare ------------------------------------------------------------------------


def store_dir(store: str) -> str | None:
    """The directory of a ``sqlite:///`` store's file (the checkout, for ``make run``)."""
    if store.startswith("sqlite:///"):
        return str(Path(store[len("sqlite:///") :]).parent)
    if store.startswith("file:"):
        return str(Path(store[len("file:") :].lstrip("/")).parent)
    return None


def record(store: str, data: Path) -> dict[str, Any]:
    roots = {"<data>": str(data)}
    where = store_dir(store)
    if where:
        roots["<store>"] = where
    runs, models = record_store(store, roots)
    datasets, sidecars = record_data(data, make_scrubber(roots, {}), _users(runs))
    return {
        "format": FORMAT,
        "excluded": {
            "noisy_names": NOISY_NAMES,
            "dropped_tags": DROPPED_TAGS,
            "dropped_params": DROPPED_PARAMS,
            "scrubbed_text": {p: t for p, (t, _) in SCRUBBED_TEXT.items()},
        },
        "runs": runs,
        "registry": models,
        "datasets": datasets,
        "sidecars": sidecars,
    }


def counts(fp: dict[str, Any]) -> tuple[int, int, int, int]:
    """(runs, params, metrics, datasets) of a fingerprint."""
    runs = fp["runs"].values()
    return (
        len(fp["runs"]),
        sum(len(r["params"]) for r in runs),
        sum(len(r["metrics"]) for r in runs),
        len(fp["datasets"]),
    )


def _show(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 160 else text[:157] + "..."


def _diff_maps(
    where: str, a: dict[str, Any], b: dict[str, Any], deep: bool = False
) -> Iterator[tuple[str, str]]:
    """(label for KNOWN_UNSTABLE, line) per difference between two name -> value maps; ``deep``:
    one line per differing field of values that are maps themselves."""
    for name in sorted(set(a) | set(b)):
        label = f"{where} {name}"
        if name not in b:
            yield label, f"{label}: only in A ({_show(a[name])})"
        elif name not in a:
            yield label, f"{label}: only in B ({_show(b[name])})"
        elif a[name] != b[name]:
            for line in _fields(label, a[name], b[name], deep):
                yield label, line


def _fields(where: str, a: Any, b: Any, deep: bool) -> Iterator[str]:
    if not (deep and isinstance(a, dict) and isinstance(b, dict)):
        yield f"{where}: {_show(a)} != {_show(b)}"
        return
    for name in sorted(set(a) | set(b)):
        if name not in b:
            yield f"{where} / {name}: only in A ({_show(a[name])})"
        elif name not in a:
            yield f"{where} / {name}: only in B ({_show(b[name])})"
        elif a[name] != b[name]:
            yield from _fields(f"{where} / {name}", a[name], b[name], deep)


def differences(a: dict[str, Any], b: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(label, readable line) per difference between fingerprints ``a`` and ``b``."""
    for key in sorted(set(a["runs"]) | set(b["runs"])):
        if key not in b["runs"]:
            yield f"{key} :: run", f"run {key}: only in A"
            continue
        if key not in a["runs"]:
            yield f"{key} :: run", f"run {key}: only in B"
            continue
        ra, rb = a["runs"][key], b["runs"][key]
        for field in ("name", "status", "lifecycle", "experiment"):
            if ra[field] != rb[field]:
                yield f"{key} :: {field}", f"run {key}: {field} {ra[field]!r} != {rb[field]!r}"
        for field, kind in (("params", "param"), ("metrics", "metric"), ("history", "history")):
            for label, line in _diff_maps(f"{key} :: {kind}", ra[field], rb[field]):
                yield label, f"run {line}"
        for label, line in _diff_maps(f"{key} :: tag", ra["tags"], rb["tags"]):
            yield label, f"run {line}"
        if ra["inputs"] != rb["inputs"]:
            yield (
                f"{key} :: input",
                (f"run {key}: dataset inputs {_show(ra['inputs'])} != {_show(rb['inputs'])}"),
            )
    for label, line in _diff_maps("registry", a["registry"], b["registry"], deep=True):
        name = label.split(" ", 1)[1]
        yield f"registry {name} :: model", line
    for label, line in _diff_maps("dataset", a["datasets"], b["datasets"], deep=True):
        yield _dataset_label(label, a, b), line
    for label, line in _diff_maps("sidecar", a["sidecars"], b["sidecars"]):
        rel = label.split(" ", 1)[1].removesuffix(".sha256")
        yield _dataset_label(f"dataset {rel}", a, b), line


def _dataset_label(label: str, a: dict[str, Any], b: dict[str, Any]) -> str:
    """``dataset <rel>``, or ``<run key> :: input <rel>`` when only one run used it (so that
    run's KNOWN_UNSTABLE entry covers the dataset too)."""
    rel = label.split(" ", 1)[1]
    users = {
        u.rsplit(" (", 1)[0]
        for fp in (a, b)
        for u in fp["datasets"].get(rel, {}).get("used_by", [])
    }
    if len(users) == 1:
        return f"{users.pop()} :: input {rel}"
    return label


def unstable_reason(label: str) -> str | None:
    for pattern, reason in KNOWN_UNSTABLE.items():
        if fnmatch.fnmatchcase(label, pattern) or fnmatch.fnmatchcase(label, pattern + "*"):
            return reason
    return None


def compare(a_path: Path, b_path: Path, lenient: bool) -> int:
    a, b = (json.loads(p.read_text()) for p in (a_path, b_path))
    for fp, path in ((a, a_path), (b, b_path)):
        if fp.get("format") != FORMAT:
            print(f"{path}: not a {FORMAT} file", file=sys.stderr)
            return 2
    if a["excluded"] != b["excluded"]:
        print("note: the two files were recorded with different exclusion lists")
    print(f"A = {a_path}, B = {b_path}")
    failing = expected = 0
    for label, line in differences(a, b):
        reason = unstable_reason(label)
        if reason:
            expected += 1
            print(f"{line}   [known unstable: {reason}]")
        else:
            failing += 1
            print(line)
    n_runs, n_params, n_metrics, n_data = counts(a)
    total = failing + (0 if lenient else expected)
    if failing + expected == 0:
        print(
            f"identical: {n_runs} runs, {n_params} params, {n_metrics} metrics, {n_data} datasets"
        )
        return 0
    print(
        f"{failing + expected} differences ({expected} in known-unstable values"
        f"{', not failing with --lenient' if lenient else ''})"
    )
    return 1 if total else 0


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="fingerprint an MLflow store and a data directory")
    rec.add_argument("--store", required=True, help="tracking URI, e.g. sqlite:////abs/mlflow.db")
    rec.add_argument("--data", required=True, type=Path, help="the data directory (data/)")
    rec.add_argument("-o", "--output", required=True, type=Path, help="the JSON file to write")
    cmp_ = sub.add_parser("compare", help="print the differences; exit 1 if any")
    cmp_.add_argument("a", type=Path)
    cmp_.add_argument("b", type=Path)
    cmp_.add_argument(
        "--lenient", action="store_true", help="exit 0 when only KNOWN_UNSTABLE values differ"
    )
    args = parser.parse_args(list(argv) if argv is not None else None)
    if args.command == "record":
        fp = record(args.store, args.data.resolve())
        args.output.write_text(json.dumps(fp, indent=1, sort_keys=True) + "\n")
        n_runs, n_params, n_metrics, n_data = counts(fp)
        print(
            f"{args.output}: {n_runs} runs, {n_params} params, {n_metrics} metrics, "
            f"{n_data} datasets, {len(fp['registry'])} registered models"
        )
        return 0
    return compare(args.a, args.b, args.lenient)


if __name__ == "__main__":
    sys.exit(main())
