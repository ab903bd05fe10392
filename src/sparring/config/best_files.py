"""``+best=<search-id>``: the best-config file a search wrote, proved complete before Hydra
reads it.

A search writes ``best/<search-id>.yaml`` sealed (``runtime.storage.sealed``: its last line is the
digest of the rest). A file cut short (``head -c 150``) still parses as YAML, with fewer keys,
and would run another config without a word; so every ``best=`` override is looked up here, in
the configs' directory and in any ``hydra.searchpath`` given, and a file that is not whole, not
the named search's own, or without a key its search set is one line before anything runs. A
name with no file is left to Hydra's own error.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from sparring.runtime.errors import UsageError
from sparring.runtime.storage.sealed import unseal

KEYS_LINE = "# keys: "  # the dotted keys the file must hold, as the search wrote them
_SEARCH_LINE = re.compile(r"^# best of search (\S+):", re.MULTILINE)
_BEST = re.compile(r"^\+{0,2}best(?:@\S+)?=(.+)$")  # +best=a, best@_global_=a, +best=a,b (-m)
_SEARCHPATH = re.compile(r"^\+{0,2}hydra\.searchpath=\[(.*)\]$")
REMEDY = "run the search again (resume=true writes the file anew) or delete the file"


def search_dirs(conf_dir: str | Path, overrides: Sequence[str]) -> list[Path]:
    """Where Hydra looks for config groups: the configs' directory, ``--config-dir``/``-cd``
    directories, then ``hydra.searchpath`` entries (``file://`` or plain paths; ``pkg://``
    ones hold no user files)."""
    dirs = [Path(conf_dir)]
    for flag, value in zip(overrides, [*overrides[1:], ""], strict=True):
        if flag in ("--config-dir", "-cd") and value:
            dirs.append(Path(value))
        elif flag.startswith("--config-dir="):
            dirs.append(Path(flag.split("=", 1)[1]))
    for override in overrides:
        match = _SEARCHPATH.match(override.strip())
        if match:
            for entry in match.group(1).split(","):
                entry = entry.strip().strip("'\"")
                if entry and not entry.startswith("pkg://"):
                    dirs.append(Path(entry.removeprefix("file://")))
    return dirs


def check_best_files(conf_dir: str | Path, overrides: Sequence[str]) -> None:
    """Refuse, in one ``UsageError`` line, a ``best=`` file that is not the whole file its
    search wrote."""
    for override in overrides:
        match = _BEST.match(override.strip())
        if not match:
            continue
        for name in (n.strip().strip("'\"") for n in match.group(1).split(",")):
            for directory in search_dirs(conf_dir, overrides):
                path = directory / "best" / f"{name}.yaml"
                if path.is_file():
                    _check_whole(path, name)
                    break


def _check_whole(path: Path, name: str) -> None:
    """The file ``+best=<name>`` found at ``path`` is whole (its seal), is the best of search
    ``name`` (not a copy of another search's file) and holds every key it names."""
    what = f"+best={name}: {path}"
    text = unseal(path.read_bytes(), what, REMEDY)
    search = _SEARCH_LINE.search(text)
    if search and search.group(1) != name:
        raise UsageError(
            f"{what} holds the best config of search {search.group(1)!r}, not of {name!r} "
            f"(copied or renamed?); use +best={search.group(1)}, or run search {name} again"
        )
    named = [line for line in text.splitlines() if line.startswith(KEYS_LINE)]
    if not named:
        return  # written before files named their keys: the seal is the proof
    import yaml  # here: only a file that names its keys needs parsing

    held = _dotted(yaml.safe_load(text) or {})
    missing = [key for key in named[0][len(KEYS_LINE) :].split(",") if key and key not in held]
    if missing:
        raise UsageError(f"{what} lacks {', '.join(missing)}, which its search set; {REMEDY}")


def _dotted(tree: object, prefix: str = "") -> set[str]:
    """Every dotted key of a nested mapping (``ga``, ``ga.p_mutation``, ...)."""
    keys: set[str] = set()
    if isinstance(tree, dict):
        for key, value in tree.items():
            keys |= {prefix + str(key)} | _dotted(value, f"{prefix}{key}.")
    return keys
