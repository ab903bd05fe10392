"""Every pipeline command that README.md, the site's pages (docs/) and the pipelines' ``--help``
show is accepted as pasted: run as a separate process from a fresh directory (a checkout's
layout: ``.venv``, ``pipelines``, ``conf``, ``examples``) with ``--check``, which composes and
checks its config (keys, values, paths, the tracking store) and runs nothing. A documented error
example (``$ command`` followed by its ``error: ...`` line) must give that line, exit 2.

This is what let two documented commands fail before (#47): each was tried only on the path the
tests take. Running every documented command to its end would take hours; ``--check`` takes the
parse, the schema and the checks, which is where a pasted command breaks first. Commands that
read the MLflow record (compare, results, history) run to their end in
``tests/ops/test_readme_examples.py``; ``sparring submit`` ones in ``tests/ops/test_submit.py``.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.helpers.commands import ROOT
from tests.helpers.docs import pages

PIPELINES = sorted(p.stem for p in (ROOT / "pipelines").glob("*.py"))
# Tools of the same names that are not the pipeline (``sparring equity AsKs``: the equity
# calculator), and readers run to their end elsewhere
NOT_PIPELINES = ("sparring equity ", "sparring compare", "sparring retrain history")
COMMAND = re.compile(
    r"^(?:\$ )?(?:\.venv/bin/)?(?:python |\.venv/bin/python )?"
    rf"(?:pipelines/({'|'.join(PIPELINES)})\.py|sparring ({'|'.join(PIPELINES)}))(?:\s|$)"
)


def _tool(line: str) -> bool:
    return any(f"/{tool}" in f"/{line}" for tool in NOT_PIPELINES)


def _blocks(text: str) -> list[list[str]]:
    """The lines of each fenced code block of a Markdown text, continuations (``\\``) joined."""
    blocks, current, inside, carried = [], [], False, ""
    for raw in text.splitlines():
        if raw.startswith("```"):
            if inside:
                blocks.append(current)
            inside, current = not inside, []
            continue
        if not inside:
            continue
        line = f"{carried} {raw.strip()}".strip() if carried else raw.strip()
        carried = line[:-1].strip() if line.endswith("\\") else ""
        if not carried:
            current.append(line)
    return blocks


def documented() -> list[tuple[str, str, str | None]]:
    """(where, command, the error line it documents or None) for every pipeline command of
    README.md, every page of the site (docs/) and the config headers that ``--help`` prints."""
    found = []
    for doc in pages():
        where = str(doc.relative_to(ROOT))
        for block in _blocks(doc.read_text()):
            for i, line in enumerate(block):
                if COMMAND.match(line) and not _tool(line):
                    said = block[i + 1] if line.startswith("$ ") and i + 1 < len(block) else None
                    found.append((where, line.removeprefix("$ "), said))
    for conf in sorted((ROOT / "conf").glob("*.yaml")):
        for raw in conf.read_text().splitlines():
            if not raw.startswith("#"):
                break
            line = raw.lstrip("#").strip()
            if COMMAND.match(line):
                found.append((f"{conf.name} (--help)", line, None))
    return found


def _argv(line: str) -> list[str]:
    """The command as a user's shell runs it from the checkout (a comment dropped)."""
    words = shlex.split(line, comments=True)
    if ">" in words:  # (where the output goes is the shell's: not the command's to check)
        words = words[: words.index(">")]
    if words[0] == "sparring":
        words[0] = ".venv/bin/sparring"
    elif words[0] == "python":
        words[0] = ".venv/bin/python"
    return words


def _run(cwd: Path, words: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(words, cwd=cwd, capture_output=True, text=True, timeout=300)


def test_every_documented_pipeline_command_is_accepted_as_pasted(tmp_path):
    commands = documented()
    assert len(commands) > 50, commands  # (the pattern finds them)
    for name in (".venv", "pipelines", "conf", "examples"):
        (tmp_path / name).symlink_to(ROOT / name)
    placeholders = [c for c in commands if "<" in c[1]]  # `league.runs=[<run id>]`: a form
    runnable = [c for c in commands if c not in placeholders]
    assert len(placeholders) <= 2, placeholders
    argvs = [
        _argv(line) + ([] if "--help" in line else ["--check"]) for _, line, _ in runnable
    ]
    with ThreadPoolExecutor(4) as pool:  # each is mostly Python starting up
        done = list(pool.map(lambda words: _run(tmp_path, words), argvs))
    failures = []
    for (where, line, said), proc in zip(runnable, done, strict=True):
        out, err = proc.stdout, proc.stderr.strip()
        if said is not None:  # an error example: that line, exit 2
            expected = said.split("...", 1)[0].strip()
            if proc.returncode != 2 or not err.startswith(expected) or "\n" in err:
                failures.append(f"{where}: {line}\n  expected {said!r}\n  got {err[-500:]!r}")
        elif proc.returncode != 0 or ("--help" not in line and "nothing was run" not in out):
            failures.append(f"{where}: {line}\n  exit {proc.returncode}: {err[-800:]}")
    assert not failures, "\n".join(failures)
    assert not (tmp_path / "outputs").exists() and not (tmp_path / "multirun").exists()


@pytest.mark.parametrize(
    "text, found",
    [
        ("```\n.venv/bin/sparring tune trials=4  # a try-out\n```", "sparring tune trials=4"),
        ("```console\n$ python pipelines/evolve.py ga.population=0\nerror: ga.po...\n```",
         "error: ga.po..."),
        ("```\n.venv/bin/sparring equity AsKs --board \"Ah 7c 2d\"\n```", None),  # the tool
        ("```\n.venv/bin/python pipelines/handgen.py \\\n  deals=10\n```", "deals=10"),
    ],
)
def test_the_collector_finds_commands_errors_and_continuations(tmp_path, text, found):
    """The control: what the collector takes from a page, and what it leaves."""
    (tmp_path / "docs").mkdir()
    page = _blocks(text)
    lines = [line for block in page for line in block if COMMAND.match(line)]
    lines = [x for x in lines if not _tool(x)]
    if found is None:
        assert not lines
    elif found.startswith("error:"):
        [block] = page
        assert block[1] == found
    else:
        assert any(found in line for line in lines), lines


# The tools (``sparring poker replay``, ``sparring play mus``, ...): everything but the
# pipelines. Many need a prior step (a deal set, a store) or a player at the keyboard, so each
# is parsed as pasted, in a process of its own, by the ``sparring`` parser itself: every
# argument converted and checked, an unknown or missing one refused, nothing run.
# ``sparring submit`` commands run in tests/ops/test_submit.py.
PARSE_ONLY = (
    "import sys; from sparring.cli import build_parser; build_parser().parse_args(sys.argv[1:])"
)
TOOL = re.compile(
    r"^(?:\$ )?(?:\.venv/bin/)?sparring\s+(?!submit\b|" + "|".join(PIPELINES) + r"\b)\w"
)


def documented_tools() -> list[tuple[str, str, str | None]]:
    """(where, command, the error line it documents or None) of every ``sparring <tool>``
    line in a code block of the docs (the generated --help page left out)."""
    found = []
    for doc in pages():
        where = str(doc.relative_to(ROOT))
        if where == "docs/reference/cli.md":  # --help texts, not commands
            continue
        for block in _blocks(doc.read_text()):
            for i, line in enumerate(block):
                if not TOOL.match(line) or ": error: " in line:  # (an error line, not a command)
                    continue
                following = block[i + 1] if i + 1 < len(block) else ""
                said = following if line.startswith("$ ") and ": error: " in following else None
                found.append((where, line.removeprefix("$ "), said))
    return sorted(set(found), key=str)


def _parse_argv(line: str) -> list[str]:
    """The command's arguments handed to the ``sparring`` parser alone (a pipe's reader cut)."""
    words = _argv(line)
    if "|" in words:
        words = words[: words.index("|")]
    return [".venv/bin/python", "-c", PARSE_ONLY, *words[1:]]


def test_every_documented_tool_command_parses_as_pasted(tmp_path):
    commands = documented_tools()
    assert len(commands) > 15, commands  # (the pattern finds them)
    for name in (".venv", "pipelines", "conf", "examples"):
        (tmp_path / name).symlink_to(ROOT / name)
    # `--deals data/deals/<hash>`: a form; `--deals "$(ls -td ...)"`: the shell's, after a run
    shaped = [c for c in commands if "<" in c[1] or "$(" in c[1]]
    assert len(shaped) <= 3, shaped
    runnable = [c for c in commands if c not in shaped]
    argvs = [_argv(line) if said else _parse_argv(line) for _, line, said in runnable]
    with ThreadPoolExecutor(4) as pool:
        done = list(pool.map(lambda words: _run(tmp_path, words), argvs))
    failures = []
    for (where, line, said), proc in zip(runnable, done, strict=True):
        err = proc.stderr.strip()
        if said is not None:  # an error example: that line, exit 2
            expected = said.split("...", 1)[0].strip()
            if proc.returncode != 2 or not err.startswith(expected) or "\n" in err:
                failures.append(f"{where}: {line}\n  expected {said!r}\n  got {err[-500:]!r}")
        elif proc.returncode != 0:
            failures.append(f"{where}: {line}\n  exit {proc.returncode}: {err[-500:]}")
    assert not failures, "\n".join(failures)


def test_the_tool_check_fails_on_a_bad_argument(tmp_path):
    """The control: a value or an option the tool does not take is refused, and nothing runs
    (the good command would start a game at the keyboard)."""
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    good = _run(tmp_path, _parse_argv("sparring play flagbots --side south --time 1.0"))
    bad = _run(tmp_path, _parse_argv("sparring play flagbots --side east"))
    typo = _run(tmp_path, _parse_argv("sparring mus simulate --matchs 10"))
    assert good.returncode == 0 and not good.stdout, good.stderr
    assert bad.returncode == 2 and "east" in bad.stderr
    assert typo.returncode == 2 and "--matchs" in typo.stderr
