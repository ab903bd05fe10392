"""Expected failures and how they read: one line, the key or input, what was wrong and what is
allowed.

``UsageError`` is the base of every failure caused by what the user gave (a bad config value, a
missing path, a store that is not a database, a tracking URI that cannot be opened). Commands
print it as one line and exit with ``EXIT_USAGE``; anything else is a bug and keeps its
traceback. ``one_line`` turns Hydra's and OmegaConf's composition errors into the same form,
and never carries terminal colour codes (a library's message may have them, e.g. Ray's).
"""

from __future__ import annotations

import re
from typing import Any

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: what `yes | head` reports for `yes`


def reader_gone() -> int:
    """The reader of stdout went away (``sparring ... | head``): nothing to report, since
    nobody reads it; stdout is pointed at /dev/null so the interpreter's final flush does not
    fail again. Returns the exit status to end with."""
    import os
    import sys

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return EXIT_BROKEN_PIPE

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")  # CSI sequences: colours, cursor moves


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit status 2."""


class ConfigError(UsageError, ValueError):
    """A configuration value is not allowed.

    ``ConfigError("ga.population", 0, "an integer >= 2")`` reads
    ``ga.population=0 is not allowed: expected an integer >= 2``; ``under("evolve")`` prefixes
    the key, so a nested schema can name its fields and its parent adds where it sits.
    ``ConfigError.text("...")`` carries a message that is not about one value.
    """

    def __init__(self, key: str, value: Any = None, expected: str = "") -> None:
        self.key, self.value, self.expected = key, value, expected
        super().__init__(self._message())

    @classmethod
    def text(cls, message: str) -> ConfigError:
        error = cls("", None, "")
        error.args = (message,)
        return error

    def _message(self) -> str:
        if not self.key:
            return self.expected
        return f"{self.key}={_show(self.value)} is not allowed: expected {self.expected}"

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as it is (Ray carries a task's error to the driver): the default would call
        # ConfigError(message) and read the message as a key.
        return (_restore, (type(self), self.args, dict(self.__dict__)))

    def under(self, prefix: str) -> ConfigError:
        """The same error with its key inside ``prefix`` (a no-op for text errors)."""
        if not self.key or not prefix:
            return self
        return ConfigError(f"{prefix}.{self.key}", self.value, self.expected)


def _restore(cls: type[ConfigError], args: tuple[Any, ...], state: dict[str, Any]) -> Any:
    """A pickled ``ConfigError`` as it was (see ``ConfigError.__reduce__``)."""
    error = Exception.__new__(cls)
    error.args = args
    error.__dict__.update(state)
    return error


def strip_ansi(text: str) -> str:
    """``text`` without terminal escape sequences (colours), for a line that may go to a file."""
    return _ANSI.sub("", text)


def _show(value: Any) -> str:
    if isinstance(value, str):
        return value if value and re.fullmatch(r"[\w.:/@+=,-]+", value) else repr(value)
    if hasattr(value, "value") and isinstance(getattr(value, "value", None), str):
        return str(value.value)  # an Enum member reads as its value
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # 0.0 reads as the 0 the user typed
    return repr(value) if not isinstance(value, (int, float)) else str(value)


def first_line(text: str) -> str:
    """The first non-empty line of ``text`` (stripped)."""
    for line in str(text).splitlines():
        if line.strip():
            return line.strip()
    return str(text).strip()


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
    lost = _server_lost(exc)
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
    from sparring.runtime.storage import FULL, no_space

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


def _server_lost(exc: BaseException) -> str | None:
    """One line for an MLflow server that did not answer a call made outside a run's outbox
    (a registry read, a claim), else None."""
    from sparring.runtime.outbox import unreachable
    from sparring.runtime.redact import redact_url

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
