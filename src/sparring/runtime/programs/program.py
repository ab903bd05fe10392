"""An outside program run under limits, spoken to one JSON line at a time.

A ``Program`` is started in its own process group and session, in a private working directory
(removed afterwards), with a bare environment (``PATH``, ``HOME`` = that directory, ``LANG``, and
the paths of Sparring's caches, ``runtime.caches.for_programs``: no credentials of the arena's
own reach it), and with these limits (``Limits``):

- memory: ``RLIMIT_AS`` (address space) of ``memory_mb``; an allocation beyond it fails inside
  the program, which then usually dies;
- CPU time: ``RLIMIT_CPU`` of ``cpu_s`` for the program's whole life (SIGXCPU, then SIGKILL);
- wall clock: every ``receive`` has a deadline (the caller's per-move, start or per-game
  budget); nothing here ever waits without one, writes included (a program that does not read
  its input cannot block the arena);
- a line longer than ``line_bytes`` is a fault, never buffered further;
- stderr is kept to its first ``stderr_bytes`` (the rest is counted and dropped);
- network: with ``network=False`` the program runs in a new, empty network namespace
  (``unshare -n``) where the machine allows one (``network_isolation()`` says whether it
  does); elsewhere it keeps the machine's network, which docs/operations/security.md states;
- a core: with ``same_core=True`` the program runs on its referee's core, which the referee
  holds while it has programs (``runtime.programs.affinity``: referee and program take turns, and
  on a
  virtual machine a wake-up on another core costs more than a turn).

With ``relay=True`` (an ACPC program, which connects to its dealer over TCP by itself) the
program's stdin is empty and its stdout joins the capped stderr log; its keeper listens on
127.0.0.1 inside the program's namespace, passes it host and port, and hands the one
connection it accepts to this ``Program`` over a socket pair (``runtime.programs.keeper``):
``send_line`` and ``receive_line`` then speak on that connection directly.

Every failure is an ``AgentFault`` with a ``kind`` (``crash``, ``timeout``, ``memory``,
``garbage``, ``long_line``, ``closed``) and one line of detail. The program runs under a keeper
(``runtime.programs.keeper``, which also applies the memory and CPU limits): ``close`` ends every
process the program started, one that left the group for a session of its own included, and so
does the arena's own death (a kill -9 of the process that runs it).
"""

from __future__ import annotations

import functools
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sparring.runtime import caches
from sparring.runtime.processes import descendants, process_start
from sparring.runtime.programs import affinity, jail, keeper

FAULT_KINDS = ("crash", "timeout", "memory", "garbage", "long_line", "closed", "illegal")


class AgentFault(Exception):
    """An agent lost the game by a fault: ``kind`` (one of ``FAULT_KINDS``) and a detail."""

    def __init__(self, kind: str, detail: str) -> None:
        assert kind in FAULT_KINDS, kind
        self.kind, self.detail = kind, detail
        super().__init__(f"{kind}: {detail}")


@dataclass(frozen=True)
class Limits:
    """What a program may use. Times in seconds; ``game_s`` None = no per-game budget."""

    move_s: float = 2.0  # the original FlagBots rule: 2 s a move
    start_s: float = 10.0  # from the start message to its answer (the program's start-up)
    game_s: float | None = None
    memory_mb: int = 100  # the original FlagBots rule: 100 MB
    cpu_s: float = 600.0
    line_bytes: int = 1 << 16
    stderr_bytes: int = 1 << 16
    network: bool = False
    same_core: bool = True  # the program runs on its referee's core (runtime.programs.affinity)
    # the sandbox (runtime.programs.jail): "bwrap", or "none" (the user's rights); None:
    # $SPARRING_SANDBOX
    sandbox: str | None = None
    read_only: tuple[str, ...] = ()  # more paths a program may read (model weights)
    file_mb: int = 64  # the largest file a program may write
    disk_mb: int = 64  # the size of its private home, and of its /tmp
    processes: int = 64  # processes (and threads) at once, its keeper included
    open_files: int = 256

    def __post_init__(self) -> None:
        for name in ("move_s", "start_s", "cpu_s"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name}={getattr(self, name)} is not allowed: expected > 0")
        if self.game_s is not None and not self.game_s > 0:
            raise ValueError(f"game_s={self.game_s} is not allowed: expected null or > 0")
        for name in ("memory_mb", "line_bytes", "stderr_bytes", "file_mb", "disk_mb"):
            if not getattr(self, name) >= 1:
                raise ValueError(f"{name}={getattr(self, name)} is not allowed: expected >= 1")
        if not self.processes >= 4:  # the sandbox's init, the keeper, the program, one more
            raise ValueError(f"processes={self.processes} is not allowed: expected >= 4")
        if not self.open_files >= 16:  # a Python interpreter opens ~10 at start
            raise ValueError(f"open_files={self.open_files} is not allowed: expected >= 16")
        jail.mode(self.sandbox)  # a name that is no sandbox: one line
        object.__setattr__(self, "read_only", tuple(str(p) for p in self.read_only))
        for path in self.read_only:
            if not os.path.isabs(path) or not os.path.exists(path):
                raise ValueError(
                    f"read_only={path} is not allowed: expected an existing absolute path"
                )

    @property
    def mode(self) -> str:
        """The sandbox programs run in: ``sandbox``, else ``$SPARRING_SANDBOX``, else bwrap."""
        return jail.mode(self.sandbox)

    def check_sandbox(self) -> None:
        """``ValueError`` (one line naming the package) where the sandbox is asked for but cannot
        run here; with ``sandbox: none``, the one warning that programs run unsandboxed."""
        if self.mode == "none":
            jail.warn_unsandboxed()
        elif (why := jail.problem()) is not None:
            raise ValueError(
                f"sandbox={self.mode} cannot run: {why}; or opt out with "
                "limits.sandbox=none (programs then run with your rights)"
            )


@functools.cache
def network_isolation() -> list[str] | None:
    """The command prefix that gives a program an empty network namespace on this machine
    (``unshare -n``, or ``unshare -rn`` through a user namespace), or None where neither is
    allowed."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    for prefix in ([unshare, "-n", "--"], [unshare, "-rn", "--"]):
        try:
            done = subprocess.run([*prefix, "true"], capture_output=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return prefix
    return None


def live_members(pgid: int) -> list[int]:
    """The processes of group ``pgid`` still alive (zombies, ended but not yet reaped by
    whoever adopted them, do not count)."""
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            alive.append(int(entry))
    return alive


class _CappedLog:
    """A reader thread keeping the first ``cap`` bytes of a stream and counting the rest."""

    def __init__(self, stream: Any, cap: int) -> None:
        self.kept = bytearray()
        self.dropped = 0
        self._thread = threading.Thread(target=self._read, args=(stream, cap), daemon=True)
        self._thread.start()

    def _read(self, stream: Any, cap: int) -> None:
        while chunk := stream.read1(1 << 14):
            room = cap - len(self.kept)
            self.kept += chunk[: max(0, room)]
            self.dropped += max(0, len(chunk) - max(0, room))

    def text(self) -> str:
        self._thread.join(timeout=1)
        tail = f"\n[{self.dropped} more bytes dropped]" if self.dropped else ""
        return self.kept.decode("utf-8", "replace") + tail



AGENT_HOME = "sparring-agent-"  # + "<starter pid>.<its start>-<random>" under $TMPDIR


def private_home() -> Path:
    """A new home for an unsandboxed program under ``$TMPDIR``, named after the process that
    starts it. The homes of starters that are gone are removed first: a keeper removes its
    program's home when the program ends, but a starter killed with -9 can take its keeper
    along (Ray kills the children of a dead job's workers), and the home would stay."""
    for old in Path(tempfile.gettempdir()).glob(f"{AGENT_HOME}*"):
        pid, _, start = old.name.removeprefix(AGENT_HOME).partition("-")[0].partition(".")
        if pid.isdigit() and start and process_start(int(pid)) != start:
            shutil.rmtree(old, ignore_errors=True)
    me = os.getpid()
    return Path(tempfile.mkdtemp(prefix=f"{AGENT_HOME}{me}.{process_start(me)}-"))


class Program:
    """One outside program under ``limits``; see the module docstring."""

    def __init__(
        self, argv: Sequence[str], limits: Limits, name: str = "program", relay: bool = False
    ) -> None:
        if not argv:
            raise ValueError("a program needs a command line")
        self.argv, self.limits, self.name, self.relay = jail.absolute(argv), limits, name, relay
        self.proc: subprocess.Popen[bytes] | None = None
        self._socket: socket.socket | None = None  # the program's connection (relay)
        self._pair: socket.socket | None = None  # where the keeper hands it over
        self._in_fd = self._out_fd = -1  # what we write to, what we read from
        self.workdir: Path | None = None
        self._buffer = bytearray()
        self._stderr: _CappedLog | None = None
        self.isolated = False
        self.core: int | None = None  # the core shared with the referee, while it runs
        self._lifeline: keeper.Lifeline | None = None  # (sandboxed) its keeper's

    # --- life
    def start(self) -> None:
        """Start the program (its own session and process group, private directory, limits)."""
        sandboxed = self.limits.mode == "bwrap"
        limits = self.limits
        if not sandboxed:  # (said once, by the config check: Limits.check_sandbox)
            self.workdir = private_home()
        prefix = [] if limits.network or sandboxed else (network_isolation() or [])
        self.isolated = (sandboxed and not limits.network) or bool(prefix)
        env = {
            "PATH": jail.search_path() if sandboxed else os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "PYTHONUNBUFFERED": "1",
            # where compiled kernels and built tables are kept (paths, no secret): a Sparring
            # program in a seat starts in ~0.5 s instead of compiling for ~2
            **caches.for_programs(),
        }
        if self.workdir is not None:
            env["HOME"] = str(self.workdir)
        theirs: socket.socket | None = None
        launch: jail.Launch | None = None
        try:
            if sandboxed:
                jail.require()
                jail.check_startable(self.argv)
            else:
                keeper.check_startable(self.argv)
            if self.relay:
                self._pair, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            if limits.same_core:
                self.core = affinity.share_core()
            if sandboxed:
                self._lifeline = keeper.Lifeline()
            kept = keeper.command(
                self.argv,
                limits.memory_mb << 20,
                max(1, int(limits.cpu_s)),
                relay_fd=None if theirs is None else theirs.fileno(),
                core=self.core,
                file_bytes=limits.file_mb << 20,
                open_files=limits.open_files,
                # per user: only inside the sandbox's user namespace is that user the program's
                processes=limits.processes if sandboxed else None,
                watch_starter=not sandboxed,
                user=jail.keeper_user() if sandboxed else None,
                lifeline=None if self._lifeline is None else self._lifeline.read,
                remove=None if self.workdir is None else str(self.workdir),
            )
            passed: tuple[int, ...] = () if theirs is None else (theirs.fileno(),)
            if self._lifeline is not None:  # (sandboxed)
                env |= caches.for_sandboxed_programs()
                launch = jail.command(
                    kept,
                    self.argv,
                    env=env,
                    read_only=limits.read_only,
                    network=limits.network,
                    disk_bytes=limits.disk_mb << 20,
                    keep_fds=(*passed, self._lifeline.read),
                )
                kept, passed = launch.argv, launch.pass_fds
            self.proc = subprocess.Popen(
                [*prefix, *kept],
                stdin=subprocess.DEVNULL if self.relay else subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT if self.relay else subprocess.PIPE,
                cwd=self.workdir or "/",
                env=env,
                start_new_session=True,
                pass_fds=passed,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            self.close()
            why = getattr(exc, "strerror", None) or str(exc)
            raise AgentFault("crash", f"cannot start {self.argv[0]}: {why}") from None
        finally:
            if theirs is not None:
                theirs.close()
            if launch is not None:
                launch.close()
            if self._lifeline is not None:
                self._lifeline.started()
        assert self.proc.stdout
        if self._pair is not None:  # the fds are the connection's, once handed over
            self._stderr = _CappedLog(self.proc.stdout, self.limits.stderr_bytes)
        else:
            assert self.proc.stdin and self.proc.stderr
            self._in_fd, self._out_fd = self.proc.stdin.fileno(), self.proc.stdout.fileno()
            os.set_blocking(self._in_fd, False)
            os.set_blocking(self._out_fd, False)
            self._stderr = _CappedLog(self.proc.stderr, self.limits.stderr_bytes)

    @property
    def pid(self) -> int | None:
        return None if self.proc is None else self.proc.pid

    def stderr(self) -> str:
        """What the program wrote to stderr (capped), once it has ended."""
        return "" if self._stderr is None else self._stderr.text()

    def close(self) -> None:
        """End every process the program started (its keeper kills them all), reap it,
        remove its directory."""
        # the tree as it is now: a sandboxed program runs in a session of its own, which the
        # group wait below does not see, and dies with its pid namespace on the kernel's
        # schedule (a bot in the middle of a 50 MiB write outlived close() by a moment)
        tree = {} if self.proc is None else descendants(self.proc.pid)
        if self._lifeline is not None:  # its keeper, in the sandbox, ends the tree and exits
            self._lifeline.cut()
            self._lifeline = None
        if self.proc is not None:
            keeper.end(self.proc)
            deadline = time.monotonic() + 5  # a forked child dies on its own schedule
            while time.monotonic() < deadline and (
                live_members(self.proc.pid)
                or any(process_start(pid) == start for pid, start in tree.items())
            ):
                time.sleep(0.01)
            for stream in (self.proc.stdin, self.proc.stdout, self._socket, self._pair):
                try:
                    if stream is not None:
                        stream.close()
                except OSError:
                    pass
            self._socket = self._pair = None
        if self.core is not None:
            affinity.release()
            self.core = None
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None

    # --- talk
    def send(self, message: dict[str, Any], deadline: float) -> None:
        """Write ``message`` as one JSON line before ``deadline`` (``time.monotonic``)."""
        self.send_line((json.dumps(message, separators=(",", ":")) + "\n").encode(), deadline)

    def _connection(self, deadline: float) -> None:
        """(relay) The program's connection, handed over by its keeper once the program has
        connected, before ``deadline``."""
        assert self._pair is not None
        left = deadline - time.monotonic()
        ready, _, _ = select.select([self._pair], [], [], max(0.0, left))
        if not ready:
            raise AgentFault("timeout", f"{self.name} did not connect in time")
        _, fds, _, _ = socket.recv_fds(self._pair, 1, 1)
        if not fds:  # the keeper ended: the program exited before it connected
            raise self._ended("ended before it connected")
        self._socket = socket.socket(fileno=fds[0])
        self._socket.setblocking(False)
        self._in_fd = self._out_fd = self._socket.fileno()
        self._pair.close()
        self._pair = None

    def send_line(self, line: bytes, deadline: float) -> None:
        """Write ``line`` (its line end included) before ``deadline``."""
        if self._pair is not None:
            self._connection(deadline)
        assert self.proc is not None and self._in_fd >= 0
        data = memoryview(line)
        while data:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AgentFault("timeout", f"{self.name} does not read its input")
            _, ready, _ = select.select([], [self._in_fd], [], left)
            if not ready:
                continue
            try:
                data = data[os.write(self._in_fd, data) :]
            except BlockingIOError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                raise self._ended("closed its input") from None

    def receive(self, deadline: float) -> dict[str, Any]:
        """The next JSON object line the program writes, before ``deadline``."""
        line = self.receive_line(deadline)
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):  # not JSON, or JSON no parser should take
            raise AgentFault("garbage", f"{self.name} wrote {_shown(line)}, not JSON") from None
        if not isinstance(message, dict):
            raise AgentFault("garbage", f"{self.name} wrote {_shown(line)}, not a JSON object")
        return message

    def receive_line(self, deadline: float) -> bytes:
        """The next line the program writes (without its ``\\n``), before ``deadline``."""
        if self._pair is not None:
            self._connection(deadline)
        assert self.proc is not None and self._out_fd >= 0
        fd = self._out_fd
        while b"\n" not in self._buffer:
            if len(self._buffer) > self.limits.line_bytes:
                raise AgentFault(
                    "long_line", f"{self.name} wrote a line over {self.limits.line_bytes} bytes"
                )
            left = deadline - time.monotonic()
            if left <= 0:
                raise AgentFault("timeout", f"{self.name} did not answer in time")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                continue
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                raise self._ended("ended" if not self.relay else "closed its connection")
            self._buffer += chunk
        line, _, rest = bytes(self._buffer).partition(b"\n")
        self._buffer = bytearray(rest)
        if len(line) > self.limits.line_bytes:
            raise AgentFault(
                "long_line", f"{self.name} wrote a line over {self.limits.line_bytes} bytes"
            )
        return line

    def _ended(self, what: str) -> AgentFault:
        """The fault of a program that stopped talking: memory, a signal or an exit status."""
        assert self.proc is not None
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        log = self.stderr() if code is not None else ""
        if "MemoryError" in log or "std::bad_alloc" in log or "Cannot allocate memory" in log:
            return AgentFault("memory", f"{self.name} ran out of its {self.limits.memory_mb} MB")
        if code is not None and code < 0:
            sig = signal.Signals(-code).name
            if -code == signal.SIGXCPU:
                return AgentFault("timeout", f"{self.name} used its {self.limits.cpu_s:g} s of CPU")
            return AgentFault("crash", f"{self.name} {what}: killed by {sig}")
        last = log.strip().splitlines()[-1][:200] if log.strip() else "no stderr"
        status = "still running" if code is None else f"exit status {code}"
        return AgentFault("crash", f"{self.name} {what} ({status}; {last})")


def _shown(line: bytes, limit: int = 60) -> str:
    text = line.decode("utf-8", "replace")
    return repr(text if len(text) <= limit else text[:limit] + "…")
