"""Every Python block on every page of the site runs as pasted: each in a fresh process, from
a fresh directory with a checkout's layout, and exits 0. A block that needs what an earlier
step made (a registered champion after ``make run``) says so just above it, in an HTML
comment ``<!-- not run here: ... -->``, and is left out; a block that is a file included from
the repository (``--8<--``) runs where that file is tested.

The control: a block that fails is reported with its page."""

from __future__ import annotations

import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.helpers.commands import BIN, ROOT
from tests.helpers.docs import pages

NOT_RUN = re.compile(r"<!-- not run here: .+ -->")


def python_blocks(text: str) -> list[tuple[int, str, bool]]:
    """(line, code, run?) of each ```python block of a page."""
    lines, blocks, i = text.splitlines(), [], 0
    while i < len(lines):
        if lines[i].strip() == "```python":
            start, code = i + 1, []
            i += 1
            while lines[i].strip() != "```":
                code.append(lines[i])
                i += 1
            before = next((x for x in reversed(lines[: start - 1]) if x.strip()), "")
            included = any(line.startswith("--8<--") for line in code)
            blocks.append((start, "\n".join(code), not NOT_RUN.search(before) and not included))
        i += 1
    return blocks


def documented() -> list[tuple[str, str, bool]]:
    return [
        (f"{doc.relative_to(ROOT)}:{line}", code, run)
        for doc in pages()
        for line, code, run in python_blocks(doc.read_text())
    ]


def _run(cwd: Path, code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "python"), "-c", code], cwd=cwd, capture_output=True, text=True, timeout=600
    )


def test_every_python_block_of_the_site_runs_as_pasted(tmp_path):
    blocks = documented()
    runnable = [(where, code) for where, code, run in blocks if run]
    assert len(runnable) >= 6, blocks  # (the collector finds them)
    assert len(blocks) - len(runnable) <= 2, [w for w, _, run in blocks if not run]
    for name in (".venv", "pipelines", "conf", "examples"):
        (tmp_path / name).symlink_to(ROOT / name)
    with ThreadPoolExecutor(2) as pool:
        done = list(pool.map(lambda block: _run(tmp_path, block[1]), runnable))
    failures = [
        f"{where}: exit {proc.returncode}\n{proc.stderr.strip()[-1500:]}"
        for (where, _), proc in zip(runnable, done, strict=True)
        if proc.returncode != 0
    ]
    assert not failures, "\n\n".join(failures)


def test_a_failing_block_is_found_and_a_marked_one_left_out(tmp_path):
    page = (
        "Text.\n\n```python\nraise SystemExit(3)\n```\n\n<!-- not run here: needs make run -->\n"
        "```python\nimport no_such_module\n```\n"
    )
    blocks = python_blocks(page)
    assert [run for _, _, run in blocks] == [True, False]
    assert _run(tmp_path, blocks[0][1]).returncode == 3
