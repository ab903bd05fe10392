"""Where the test suite's CPU goes, test by test: a pytest plugin and its summary.

    PYTHONPATH=benchmarks .venv/bin/python -m pytest -p suite_cpu          # one process: exact
    python benchmarks/suite_cpu.py /tmp/sparring-suite-cpu.jsonl            # the tables

The plugin appends one JSON line per test to ``$SUITE_CPU_OUT`` (default
``sparring-suite-cpu.jsonl`` in the temporary directory: never the checkout, which the suite
checks it leaves clean): its start and wall seconds, the machine's busy CPU-seconds over it
(``/proc/stat``: the test, its subprocesses, the Ray workers and servers it woke), its own
process's CPU and that of the subprocesses it waited for, and its xdist worker. With one test
process the busy figure is the test's own cost (plus the idle Ray head's ~4% of a core); with
two workers it counts the other worker's too, and the start times give each worker's timeline.
"""

from __future__ import annotations

import collections
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import busy_seconds


def _cpu(who: int) -> float:
    used = resource.getrusage(who)
    return used.ru_utime + used.ru_stime


try:
    import pytest
except ImportError:  # the summary alone needs no pytest
    pytest = None  # type: ignore[assignment]

if pytest is not None:

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):  # type: ignore[no-untyped-def]
        start, busy = time.time(), busy_seconds()
        own, children = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
        yield
        record = {
            "test": item.nodeid,
            "start": start,
            "wall": time.time() - start,
            "busy": busy_seconds() - busy,
            "own": _cpu(resource.RUSAGE_SELF) - own,
            "children": _cpu(resource.RUSAGE_CHILDREN) - children,
            "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
        }
        default = Path(tempfile.gettempdir()) / "sparring-suite-cpu.jsonl"
        with open(os.environ.get("SUITE_CPU_OUT", default), "a") as out:
            out.write(json.dumps(record) + "\n")


def summary(path: Path, top: int = 15) -> str:
    """The totals, the ``top`` tests and folders by busy CPU-seconds, and each worker's end."""
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    busy = sum(r["busy"] for r in records)
    lines = [
        f"{len(records)} tests: wall {sum(r['wall'] for r in records):.0f} s, machine busy "
        f"{busy:.0f} CPU-s (test processes {sum(r['own'] for r in records):.0f}, their waited "
        f"subprocesses {sum(r['children'] for r in records):.0f})",
        "",
        "| busy CPU-s | wall s | test |",
        "|---:|---:|---|",
    ]
    ranked = sorted(records, key=lambda r: -r["busy"])
    lines += [f"| {r['busy']:.1f} | {r['wall']:.1f} | `{r['test']}` |" for r in ranked[:top]]
    share = sum(r["busy"] for r in ranked[:top]) / busy if busy else 0.0
    lines += ["", f"the {top} above: {share:.0%} of the busy CPU-seconds", ""]
    folders: collections.Counter[str] = collections.Counter()
    for r in records:
        folders["/".join(r["test"].split("::")[0].split("/")[:-1])] += r["busy"]
    lines += [f"{cpu:7.0f}  {folder}" for folder, cpu in folders.most_common(top)]
    if not all("start" in r for r in records):  # (files of an earlier version of the plugin)
        return "\n".join(lines)
    first = min(r["start"] for r in records)
    ends = collections.defaultdict(float)
    for r in records:
        ends[r["worker"]] = max(ends[r["worker"]], r["start"] + r["wall"] - first)
    ended = ", ".join(f"{worker} {end:.0f}" for worker, end in sorted(ends.items()))
    lines += ["", f"workers end at (s): {ended}"]
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print(summary(Path(sys.argv[1])))
