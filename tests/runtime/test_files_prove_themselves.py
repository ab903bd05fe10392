"""Every kind of file a later run reads back proves itself (``tests/helpers/proving.py``): a flipped
bit, a cut, or an intact copy of another file of its kind in its place is refused in one line
or computed again, never used; and every writer in ``src/`` is one of those kinds or a file no
run reads back (#27, "a file that proves itself")."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from tests.helpers.proving import (
    FAULTS,
    KINDS,
    RECOMPUTED,
    REFUSED,
    copy_over,
    cut,
    flip,
    is_outcome,
)

SRC = Path(__file__).resolve().parents[2] / "src"

CASES = [(kind, fault) for kind in KINDS for fault in FAULTS if fault in KINDS[kind]().faults]


def same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b))
    if hasattr(a, "equals"):
        return a.equals(b)
    return a == b


@pytest.mark.parametrize(("kind", "fault"), CASES)
def test_a_damaged_or_misplaced_file_is_never_used(tmp_path, kind, fault):
    files = KINDS[kind]()
    first, _ = files.make(tmp_path, 0)
    second, made = files.make(tmp_path, 1)
    intact = files.read(second, made)
    assert not is_outcome(intact, REFUSED, RECOMPUTED), "the reader refuses an intact file"
    assert same(intact, files.expected(made))
    {"flip": flip, "cut": cut, "copy": lambda p: copy_over(first, p)}[fault](second)
    assert is_outcome(files.read(second, made), REFUSED, RECOMPUTED)


# Every module of src/ that writes a file: the kind of file it writes (in KINDS), or why no
# run reads it back. A module that writes and is not named here fails the test below.
WRITERS = {
    "sparring.champions.pairs": "league_pair",
    "sparring.champions.registry": "champion",
    "sparring.ga.checkpoint": "checkpoint",
    "sparring.poker.tables": "evaluator_tables",
    "sparring.runtime.storage.datasets": "dataset",  # every Parquet dataset and deal shard
    "sparring.tuning.state": "search_state",
    "sparring.tuning.summary": "best_file",  # and plots for people (savefig)
    "sparring.pipelines.arena": "arena_block",  # and the SPRT plot
    "sparring.runtime.storage.location": "the atomic write every kind above goes through",
    "sparring.runtime.tracking.sqlite_store": (
        "mlflow.db: made whole under a temporary name (item 7)"
    ),
    "sparring.runtime.tracking.store_template": "store_template",
    "sparring.runtime.tracking.runs": "the store's lock file, never read",
    "sparring.runtime.ray.local_head": "the head's record, checked against the live process",
    "sparring.launch.app": "Hydra's own files, rewritten redacted; read by people",
    "sparring.cli.cluster": "cluster.yaml, read by `ray up`, not by Sparring",
    "sparring.reporting.compare": "a plot for people",
    "sparring.reporting.plots": "plots for people",
    "sparring.modeling.calibration": "a reliability plot for people",
    # (tests/arena/test_hidden_chance.py: a key of the wrong size is one line; a flipped bit
    # only means no block verifies, and they are played again)
    "sparring.runtime.storage.keys": "the store's key, made once, checked by its size",
    "sparring.runtime.programs.jail": (
        "a new user namespace's uid and gid maps in /proc, not a file"
    ),
}


def _writes(tree: ast.AST) -> set[str]:
    """The file-writing calls in a module: ``Path.write_bytes/write_text``, numpy's savers,
    ``os.replace/link``, ``json.dump``, ``pq.write_table``, ``savefig``, ``open`` to write."""
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Attribute):
            base = f.value.id if isinstance(f.value, ast.Name) else ""
            if f.attr in ("write_bytes", "write_text", "savefig"):
                found.add(f.attr)
            elif (base, f.attr) in {("np", "save"), ("np", "savez"), ("np", "savez_compressed"),
                                    ("os", "replace"), ("os", "link"), ("json", "dump"),
                                    ("pq", "write_table")}:  # fmt: skip
                found.add(f"{base}.{f.attr}")
        elif isinstance(f, ast.Name) and f.id == "open":
            mode = node.args[1] if len(node.args) > 1 else None
            mode = mode or next((k.value for k in node.keywords if k.arg == "mode"), None)
            if isinstance(mode, ast.Constant) and set(str(mode.value)) & set("wax"):
                found.add("open")
    return found


def writers() -> dict[str, set[str]]:
    found = {}
    for path in sorted((SRC / "sparring").rglob("*.py")):
        calls = _writes(ast.parse(path.read_text()))
        if calls:
            found[path.relative_to(SRC).with_suffix("").as_posix().replace("/", ".")] = calls
    return found


def test_every_writer_is_a_kind_that_proves_itself_or_is_never_read_back():
    found = writers()
    unnamed = sorted(set(found) - set(WRITERS))
    assert not unnamed, f"these modules write files: add each to WRITERS (and KINDS): {unnamed}"
    stale = sorted(set(WRITERS) - set(found))
    assert not stale, f"these write no file any more: take them out of WRITERS: {stale}"
    kinds = {v for v in WRITERS.values() if v in KINDS}
    assert kinds == set(KINDS), "every kind in tests/helpers/proving.py has its writer here"


def test_the_walk_finds_a_planted_writer():
    planted = ast.parse(
        "import numpy as np, os\nnp.save(p, a)\nopen(p, 'wb')\nopen(p)\nos.replace(a, b)\n"
    )
    assert _writes(planted) == {"np.save", "open", "os.replace"}
