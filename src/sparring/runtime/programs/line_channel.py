"""A line channel to an outside program that never hangs and never runs out of memory.

The channel of the programs that speak a line protocol of their own on stdin and stdout (an
Eleusis scientist, ``eleusis.protocol``); the arena's JSON-lines agents use ``program``.
The program runs in its own process group. Reads wait at most ``move_timeout`` seconds for a
line (the first one ``start_timeout``: starting a program may mean compiling its kernels), and
never past the game's deadline; a line longer than ``max_line`` bytes or not UTF-8 ends the game
as invalid, quoting at most 80 characters of it. Writes never block: replies wait in a buffer
while the program is not reading, and are sent whenever its input has room, so a program that
writes without reading the replies cannot deadlock the referee. The program runs under a keeper
(``runtime.programs.keeper``): ``close`` ends everything it started, a child in a session of its
own included, and so does the referee's own death, SIGKILL included. It runs in the sandbox
(``runtime.programs.jail``: bubblewrap, with a bare environment, a private home, its own
loopback, no view of the machine's files or processes) unless ``sandbox`` is "none".
"""

from __future__ import annotations

import contextlib
import os
import selectors
import subprocess
import time
from collections.abc import Sequence

from sparring.runtime import caches
from sparring.runtime.programs import jail, keeper

QUOTE = 80  # characters of a bad line quoted in a message
# a sandboxed program's bounds (runtime.programs.jail): files, processes and threads, open files
SANDBOX_RLIMITS = {"file_bytes": 64 << 20, "processes": 64, "open_files": 256}


class ProtocolError(ValueError):
    """A line that does not follow the protocol."""


class MoveTimeout(TimeoutError):
    """The program did not answer in time."""


def quote(data: bytes | bytearray | str) -> str:
    """At most ``QUOTE`` characters of what was received, for a one-line message."""
    text = bytes(data).decode("utf-8", "backslashreplace") if not isinstance(data, str) else data
    return repr(text[:QUOTE]) + ("..." if len(text) > QUOTE else "")


class LineProgram:
    """``command`` started with pipes in a new process group; lines in, lines out."""

    def __init__(
        self,
        command: Sequence[str],
        move_timeout: float = 10.0,
        max_line: int = 1024,
        game_timeout: float | None = None,
        start_timeout: float = 60.0,
        sandbox: str | None = None,
        read_only: Sequence[str] = (),
    ) -> None:
        self.lifeline: keeper.Lifeline | None = None
        if jail.mode(sandbox) == "bwrap":  # jail.SandboxUnavailable (one line) where it cannot run
            command = jail.absolute(command)
            env = {"LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1", **caches.for_programs()}
            env |= caches.for_sandboxed_programs()
            jail.check_startable(command)  # an OSError, as Popen of the program gives
            self.lifeline = keeper.Lifeline()
            kept = keeper.command(
                command,
                watch_starter=False,
                user=jail.keeper_user(),
                lifeline=self.lifeline.read,
                file_bytes=SANDBOX_RLIMITS["file_bytes"],
                processes=SANDBOX_RLIMITS["processes"],
                open_files=SANDBOX_RLIMITS["open_files"],
            )
            launch = jail.command(
                kept, command, env=env, read_only=read_only, keep_fds=(self.lifeline.read,)
            )
            try:
                self.proc = subprocess.Popen(
                    launch.argv,  # close() ends all it starts, however it detaches
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    start_new_session=True,
                    env=env,
                    pass_fds=launch.pass_fds,
                )
            finally:
                launch.close()
                self.lifeline.started()
        else:
            jail.warn_unsandboxed()
            keeper.check_startable(command)  # an OSError, as Popen of the program gives
            self.proc = subprocess.Popen(
                keeper.command(command),  # close() ends all it starts, however it detaches
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                start_new_session=True,
            )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin, self.stdout = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        os.set_blocking(self.stdin, False)
        os.set_blocking(self.stdout, False)
        self.move_timeout, self.max_line = move_timeout, max_line
        self.next_timeout = max(move_timeout, start_timeout)  # the first move includes startup
        self.deadline = None if game_timeout is None else time.monotonic() + game_timeout
        self.incoming = bytearray()
        self.outgoing = bytearray()
        self.input_open = True
        self.selector = selectors.DefaultSelector()

    def read_line(self) -> str | None:
        """The next line (without its newline), None at the end of the program's output."""
        allowed, self.next_timeout = self.next_timeout, self.move_timeout
        limit = time.monotonic() + allowed
        if self.deadline is not None:
            limit = min(limit, self.deadline)
        while True:
            end = self.incoming.find(b"\n")
            if end >= 0:
                raw = bytes(self.incoming[:end])
                del self.incoming[: end + 1]
                return self._decode(raw)
            if len(self.incoming) > self.max_line:
                raise ProtocolError(
                    f"a line longer than {self.max_line} bytes, starting {quote(self.incoming)}"
                )
            left = limit - time.monotonic()
            if left <= 0:
                game_over = self.deadline is not None and limit == self.deadline
                what = "the game's time limit" if game_over else f"{allowed:g} s"
                raise MoveTimeout(f"no move within {what}")
            if not self._pump(left):
                if self.incoming:  # a last line without its newline
                    raw = bytes(self.incoming)
                    self.incoming.clear()
                    return self._decode(raw)
                return None

    def write_line(self, line: str) -> None:
        """Queue ``line`` (a newline is added) and send what the program's input takes now."""
        if self.input_open:
            self.outgoing += line.encode() + b"\n"
            self._flush()

    def close(self) -> int | None:
        """Close the program's input, give it a moment, then end everything it started;
        returns its exit status (None if it had to be killed)."""
        self.input_open = False
        with contextlib.suppress(OSError):
            self.proc.stdin.close()  # type: ignore[union-attr]
        status = None
        with contextlib.suppress(subprocess.TimeoutExpired):
            status = self.proc.wait(timeout=2)  # it ended: the keeper ended the rest
        if status is None:
            if self.lifeline is not None:  # its keeper, in the sandbox, ends the tree
                self.lifeline.cut()
            keeper.end(self.proc)
        if self.lifeline is not None:
            self.lifeline.cut()
        with contextlib.suppress(OSError):
            self.proc.stdout.close()  # type: ignore[union-attr]
        self.selector.close()
        return status

    def _decode(self, raw: bytes) -> str:
        if len(raw) > self.max_line:
            raise ProtocolError(f"a line longer than {self.max_line} bytes, starting {quote(raw)}")
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ProtocolError(f"a line that is not UTF-8: {quote(raw)}") from None

    def _flush(self) -> None:
        while self.outgoing and self.input_open:
            try:
                sent = os.write(self.stdin, self.outgoing)
            except BlockingIOError:
                return  # full: the rest goes when the program reads
            except (BrokenPipeError, OSError):
                self.input_open = False  # it stopped reading: the next read tells
                self.outgoing.clear()
                return
            del self.outgoing[:sent]

    def _pump(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for output (sending queued input meanwhile); False at EOF."""
        keys = {}
        keys[self.stdout] = selectors.EVENT_READ
        if self.outgoing and self.input_open:
            keys[self.stdin] = selectors.EVENT_WRITE
        for fd, events in keys.items():
            self.selector.register(fd, events)
        try:
            ready = self.selector.select(timeout)
        finally:
            for fd in keys:
                self.selector.unregister(fd)
        for key, _ in ready:
            if key.fd == self.stdin:
                self._flush()
            else:
                # read no more than a line can be, so a flood costs no memory
                chunk = os.read(self.stdout, self.max_line + 2)
                if not chunk:
                    return False
                self.incoming += chunk
        return True
