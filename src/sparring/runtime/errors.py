"""Expected failures and how they read: one line, the key or input, what was wrong and what is
allowed.

``UsageError`` is the base of every failure caused by what the user gave (a bad config value, a
missing path, a store that is not a database, a tracking URI that cannot be opened). Commands
print it as one line and exit with ``EXIT_USAGE``; anything else is a bug and keeps its
traceback. ``runtime.explain.one_line`` reads any expected failure (ours, Hydra's, OmegaConf's,
a full disk, a service that does not answer) as such a line.
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

def said_last() -> None:
    """What the process printed on stderr is its last word: stderr is pointed at /dev/null, so
    what the teardown writes after it (Ray's C++ threads logging, as the driver shuts down, that
    they could not report a cancelled task: seen in CI) cannot push the one line a user or a
    scheduler reads off the end. Call it only on the way out of the process."""
    import os
    import sys

    sys.stderr.flush()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)


def say_last(line: str) -> None:
    """Print ``line`` on stderr, then ``said_last``: nothing the process writes after it shows."""
    import sys

    print(line, file=sys.stderr, flush=True)
    said_last()


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
