"""Any expected failure as one line: what was wrong, where, and what to do.

``one_line(exc)`` knows our ``UsageError``; Hydra's and OmegaConf's composition errors (unknown
keys, wrong types, unknown config-group options, override syntax, YAML that does not parse); a
full disk anywhere in the causes; and a service that does not answer, named right (the Ray
cluster or the MLflow server). Anything else is None: a bug, which keeps its traceback. The
line never carries terminal colour codes (a library's message may have them, e.g. Ray's).

It sits above the modules whose failures it reads (storage, the tracking outbox), which raise
the plain errors of ``runtime.errors``.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

from sparring.runtime.errors import UsageError, first_line, strip_ansi


def one_line(exc: BaseException) -> str | None:
    """One line for an expected failure, without colour codes, or None when ``exc`` is not one
    (a bug).

    Knows our ``UsageError`` and the composition errors of Hydra and OmegaConf: unknown keys,
    wrong types, unknown config-group options and override syntax.
    """
    line = _one_line(exc)
    return None if line is None else strip_ansi(line)


def _one_line(exc: BaseException) -> str | None:
    from hydra.errors import (
        ConfigCompositionException,
        MissingConfigException,
        OverrideParseException,
    )
    from omegaconf.errors import (
        ConfigAttributeError,
        ConfigKeyError,
        OmegaConfBaseException,
        ValidationError,
    )

    if isinstance(exc, UsageError):
        return first_line(str(exc)) if "\n" in str(exc) else str(exc)
    full = _disk_full(exc)
    if full is not None:
        return full
    lost = _ray_lost(exc) or _server_lost(exc)
    if lost is not None:
        return lost
    if isinstance(exc, MissingConfigException):
        return _missing_option(exc)
    broken = _yaml_error(exc)
    if broken is not None:
        return broken
    if isinstance(exc, OverrideParseException):
        return _unreadable_override(exc.override, first_line(str(exc)))
    cause: BaseException | None = exc
    while cause is not None and not isinstance(cause, OmegaConfBaseException):
        cause = cause.__cause__ or cause.__context__
    if isinstance(cause, (ConfigKeyError, ConfigAttributeError)):
        return _unknown_key(cause)
    if isinstance(cause, ValidationError):
        override = re.search(r"override (\S+?)=(.*)$", first_line(str(exc)))
        return _wrong_type(cause, override.group(2) if override else None)
    if isinstance(exc, ConfigCompositionException):
        return first_line(str(exc))
    return None


def _yaml_error(exc: BaseException) -> str | None:
    """One line for a config file that is not valid YAML, anywhere in ``exc``'s causes: the
    file, the line and column, and what the parser expected."""
    import yaml

    cause: BaseException | None = exc
    while cause is not None and not isinstance(cause, yaml.YAMLError):
        cause = cause.__cause__ or cause.__context__
    if cause is None:
        return None
    mark = getattr(cause, "problem_mark", None)
    problem = getattr(cause, "problem", None) or first_line(str(cause))
    where = f"{mark.name} line {mark.line + 1}, column {mark.column + 1}" if mark else "a config"
    return f"{where}: not valid YAML ({problem}); fix that file"


_PLAIN = re.compile(r"[\w./:@+\-*%^~]*")  # what Hydra reads unquoted in a value


def _unreadable_override(override: str, why: str) -> str:
    """One line for an override Hydra cannot parse: which one, why, and the same override with
    its values quoted, as the shell needs it (a value holding ``=``, ``?``, a space, a comma
    or a bracket must be quoted for Hydra, and the whole for the shell)."""
    key, sep, value = override.partition("=")
    said = f"cannot read the override {override}: {why}"
    if not sep:
        return said
    if value.startswith("[") and value.endswith("]"):
        items = _split_items(value[1:-1])
        fixed = "[" + ",".join(_quoted(item) for item in items) + "]"
    else:
        fixed = _quoted(value)
    shown = "'" + f"{key}={fixed}".replace("'", "'\\''") + "'"
    return f"{said}; quote its values: {shown}"


def _quoted(item: str) -> str:
    """``item`` double-quoted for Hydra unless it is plain (or quoted already)."""
    if _PLAIN.fullmatch(item) or (len(item) > 1 and item[0] == item[-1] and item[0] in "'\""):
        return item
    return '"' + item.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _split_items(text: str) -> list[str]:
    """A list's items split at its top-level commas (quotes and brackets kept whole)."""
    items, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i].strip())
            start = i + 1
    items.append(text[start:].strip())
    return [item for item in items if item]


def _disk_full(exc: BaseException) -> str | None:
    """One line for a write that found its disk full anywhere in ``exc``'s causes (a writer of
    ours words it itself, see ``storage.no_space``; this catches the others: Hydra's outputs,
    MLflow's artifacts, the SQLite store), else None."""
    from sparring.runtime.storage.location import FULL, no_space

    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno in FULL:
            return str(no_space(seen.filename or "a file"))
        if "database or disk is full" in str(seen):
            return (
                "the tracking store's disk is full (SQLite: database or disk is full); free "
                "some space, then run the same command again"
            )
        seen = seen.__cause__ or seen.__context__
    return None


def _raised_in_ray(exc: BaseException) -> bool:
    """Whether ``exc`` was raised inside Ray's own code (its traceback ends in the ray package)."""
    ray = sys.modules.get("ray")
    init = getattr(ray, "__file__", None)
    if not init:  # Ray not imported: nothing of it raised
        return False
    package = os.path.dirname(init) + os.sep
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb.tb_frame.f_code.co_filename
        tb = tb.tb_next
    return last is not None and last.startswith(package)


def _ray_lost(exc: BaseException) -> str | None:
    """One line for a Ray cluster that stopped answering (a ``ConnectionError`` of Ray's own:
    its GCS gone mid-run, or never reached), else None. Without it the line would blame the
    MLflow server, the other service a run talks to (seen in a job whose cluster went away)."""
    if not isinstance(exc, ConnectionError) or not _raised_in_ray(exc):
        return None
    address = os.environ.get("RAY_ADDRESS")
    where = f"at {address}" if address else first_line(str(exc)).rstrip(".")
    return (
        f"the Ray cluster does not answer ({where}): it went away or cannot be reached; "
        "start it again or check ray.address, then run the same command again"
    )


def _server_lost(exc: BaseException) -> str | None:
    """One line for an MLflow server that did not answer a call made outside a run's outbox
    (a registry read, a claim), else None."""
    from sparring.runtime.redact import redact_url
    from sparring.runtime.tracking.outbox import unreachable

    if not unreachable(exc):
        return None
    url = re.search(r"API request to (\S+)", str(exc))
    where = redact_url(url.group(1)) if url else "the tracking server"
    return (
        f"the MLflow server does not answer ({where}); start it or check tracking.uri, then "
        "run the same command again"
    )


def _unknown_key(exc: Any) -> str:
    key = str(getattr(exc, "full_key", "") or "")
    match = re.search(r"Key '([^']+)' not in", str(exc))
    name = match.group(1) if match else key.rsplit(".", 1)[-1]
    full = key or name
    parent = full.rsplit(".", 1)[0] if "." in full else ""
    allowed = _fields_of(getattr(exc, "object_type", None))
    where = f" in {parent}" if parent else ""
    hint = f": allowed keys{where} are {', '.join(allowed)}" if allowed else ""
    return f"{full} is not a known key{hint}"


def _wrong_type(exc: Any, given: str | None = None) -> str:
    key = str(getattr(exc, "full_key", "") or "")
    message = first_line(str(exc))
    value = re.search(r"value '([^']*)'", message, re.IGNORECASE)
    shown = value.group(1) if value else (given if given is not None else "?")
    if "is not a ListConfig" in message:
        return f"{key}={shown} is not allowed: expected a list, e.g. [a, b]"
    if "is not a DictConfig" in message or "is not a subclass of" in message:
        return f"{key}={shown} is not allowed: expected a mapping, e.g. {{a: 1}}"
    wanted = re.search(
        r"converted to (\w+)|not a valid (\w+)|Invalid value '[^']*', expected one of \[([^\]]*)\]",
        message,
    )
    if wanted and wanted.group(3):
        expected = "one of " + ", ".join(s.strip() for s in wanted.group(3).split(","))
    elif wanted:
        kind = (wanted.group(1) or wanted.group(2) or "").lower()
        expected = {
            "integer": "an integer",
            "float": "a number",
            "bool": "true or false",
            "boolean": "true or false",
            "string": "a string",
        }.get(kind, f"a value of type {kind}")
    else:
        expected = message
    if key:
        return f"{key}={shown} is not allowed: expected {expected}"
    return message


def _missing_option(exc: Any) -> str:
    text = str(exc)
    match = re.search(r"Could not find '([^']+)'", text)
    options = [
        line.strip()
        for line in text.splitlines()
        if line.startswith("\t") and "provider=" not in line and line.strip()
    ]
    if match and "/" in match.group(1):
        group, _, name = match.group(1).rpartition("/")
        if options:
            return f"{group}={name} is not allowed: expected one of {', '.join(options)}"
        return f"{group}={name}: no such option"
    return first_line(text)


def _fields_of(object_type: Any) -> list[str]:
    import dataclasses

    if object_type is not None and dataclasses.is_dataclass(object_type):
        return [f.name for f in dataclasses.fields(object_type)]
    return []
