"""An outside program's whole process tree, ended together: nothing it starts outlives it.

A process group is not enough: a program may start a child in a session of its own
(``setsid``), and a referee killed by SIGHUP or SIGKILL never gets to end anything. So every
outside program (an Eleusis scientist, an arena agent) runs under a small keeper, this file run
as a script by the same Python with only the standard library (``python -I -S``, about 20 ms):

- the keeper makes itself the *child subreaper* of its subtree
  (``prctl(PR_SET_CHILD_SUBREAPER)``): whatever the program starts, however it detaches, stays
  a descendant of the keeper instead of passing to PID 1;
- it starts the program (its stdin, stdout and stderr are the keeper's own; the keeper keeps
  none of them open, so the caller sees the end of the output when the program's tree ends)
  with the resource limits it was given;
- it ends the whole tree with SIGKILL, reaps it, and exits with the program's own status (a
  program killed by a signal: the keeper dies by the same signal) when the program exits, when
  it is sent SIGTERM, SIGHUP or SIGINT (``end`` sends SIGTERM), or when the process that started
  it is gone (polled every ``POLL_S``): a referee killed with -9 leaves nothing behind;
- a keeper itself killed with -9 takes the program with it (``PR_SET_PDEATHSIG``), though not
  what the program started.

- with ``--relay FD`` (an ACPC program, which connects to its dealer by itself) the keeper
  listens on 127.0.0.1 at a free port, in its own network namespace when it was started in one
  (the loopback is brought up first), appends ``127.0.0.1 <port>`` to the program's command
  line as the reference ``play_match.pl`` does, accepts one connection and hands it to the
  arena: the connected socket is sent over the Unix socket ``FD`` (the arena's end of a socket
  pair, ``SCM_RIGHTS``), and the arena talks to the program on it directly, with no copy in
  between (a socket keeps the namespace it was made in, whoever holds it). The program reaches
  its dealer and, in an empty namespace, nothing else.

    python -I -S keeper.py [--memory BYTES] [--cpu SECONDS] [--fsize BYTES] [--nproc N]
        [--nofile N] [--starter PID] [--relay FD] [--affinity CORE] [--user UID:GID]
        [--lifeline FD] -- program ...
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence

PR_SET_PDEATHSIG = 1  # linux/prctl.h
PR_SET_CHILD_SUBREAPER = 36
POLL_S = 0.5
_STOP = {signal.SIGTERM, signal.SIGHUP, signal.SIGINT}
_WATCHED = {signal.SIGCHLD, *_STOP}


def command(
    argv: Sequence[str],
    memory_bytes: int | None = None,
    cpu_s: int | None = None,
    relay_fd: int | None = None,
    core: int | None = None,
    *,
    file_bytes: int | None = None,
    processes: int | None = None,
    open_files: int | None = None,
    watch_starter: bool = True,
    user: str | None = None,
    lifeline: int | None = None,
    remove: str | None = None,
) -> list[str]:
    """The command line that runs ``argv`` under a keeper (with an address-space limit of
    ``memory_bytes``, a CPU-time limit of ``cpu_s`` seconds, a largest file of ``file_bytes``,
    at most ``processes`` processes of its user and ``open_files`` open files, each when given;
    ``relay_fd``: hand a TCP connection of the program's over that inherited socket;
    ``core``: the program runs on that core only, ``runtime.programs.affinity``). ``watch_starter``:
    the keeper ends the program when this process is gone; off inside a pid namespace, where
    this process has no pid (give a ``lifeline`` there instead: the read end of a pipe whose
    write end only this process holds, ``Lifeline``; the keeper ends the program when it
    closes, whoever closes it, a kill -9 of this process included). ``user``
    (``uid:gid``): the program runs as that user, with no groups (the keeper, root inside a
    sandbox's user namespace, stays root: the program can neither signal nor trace it).
    ``remove``: a directory of the program's (an unsandboxed home) the keeper deletes once the
    tree has ended, so that a starter killed with -9 leaves none behind."""
    keeper = [sys.executable, "-I", "-S", os.path.abspath(__file__)]
    if watch_starter:
        keeper += ["--starter", str(os.getpid())]
    for option, value in (
        ("--memory", memory_bytes),
        ("--cpu", cpu_s),
        ("--fsize", file_bytes),
        ("--nproc", processes),
        ("--nofile", open_files),
        ("--relay", relay_fd),
        ("--affinity", core),
        ("--user", user),
        ("--lifeline", lifeline),
        ("--remove", remove),
    ):
        if value is not None:
            keeper += [option, str(value)]
    return [*keeper, "--", *argv]


class Lifeline:
    """A pipe between a starter and a keeper that cannot see it (in another pid namespace):
    the keeper is given ``read`` (``command(lifeline=...)``, passed to the process that starts
    it), the starter keeps ``write`` and never writes. When the starter ``cut``s it, or dies
    however it dies, the keeper reads the end of the pipe and ends the program's tree."""

    def __init__(self) -> None:
        self.read, self.write = os.pipe()

    def started(self) -> None:
        """The keeper has its copy: close this process's read end."""
        with contextlib.suppress(OSError):
            os.close(self.read)

    def cut(self) -> None:
        """Tell the keeper to end the program (close the write end), once."""
        if self.write >= 0:
            with contextlib.suppress(OSError):
                os.close(self.write)
            self.write = -1
        self.started()


def check_startable(argv: Sequence[str]) -> None:
    """Raise ``FileNotFoundError`` when ``argv[0]`` is no program that can be run (as
    ``subprocess.Popen`` would, had it started the program itself, not its keeper)."""
    if not argv or shutil.which(argv[0]) is None:
        name = argv[0] if argv else ""
        raise FileNotFoundError(errno.ENOENT, "no such program (or not executable)", name)


def end(proc: subprocess.Popen, grace_s: float = 5.0) -> int:
    """End a program started with ``command`` and everything it started; its exit status.
    The keeper is asked (SIGTERM) and given ``grace_s``; a keeper that does not finish in time
    is killed with its whole process group."""
    if proc.poll() is not None:
        return proc.returncode  # reaped: its pid (and group) may be another's by now
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        pass
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    return proc.wait()


def running(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, ended and waiting to be reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


def descendants(root: int) -> list[int]:
    """The live descendants of process ``root`` (zombies not counted), read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] not in ("Z", "X"):
            children.setdefault(int(fields[1]), []).append(int(entry))
    found, frontier = [], [root]
    while frontier:
        for pid in children.get(frontier.pop(), []):
            found.append(pid)
            frontier.append(pid)
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return running(pid)


def _kill_tree() -> dict[int, int]:
    """SIGKILL every descendant of this keeper until none is left (one may fork meanwhile);
    the wait statuses of the children reaped on the way."""
    ended: dict[int, int] = {}
    for _ in range(50):
        alive = descendants(os.getpid())
        if not alive:
            break
        for pid in alive:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        ended.update(_reap(block_s=0.05))
    ended.update(_reap())
    return ended


def _reap(block_s: float = 0.0) -> dict[int, int]:
    """Reap every child that has ended (waiting up to ``block_s`` for a first one): pid ->
    wait status."""
    ended: dict[int, int] = {}
    deadline = time.monotonic() + block_s
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return ended
        if pid:
            ended[pid] = status
            continue
        if ended or time.monotonic() >= deadline:
            return ended
        time.sleep(0.005)


def _start(
    argv: list[str], limits: dict[str, int], libc: ctypes.CDLL, user: tuple[int, int] | None
) -> int:
    pid = os.fork()
    if pid:
        return pid
    try:  # the program: default signal dispositions, its user, the limits, then exec
        for sig in (signal.SIGPIPE, signal.SIGXFSZ, *_STOP):
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, set())  # the program blocks nothing
        if user is not None:  # groups first: after the uid, the right to change them is gone
            os.setgroups([])
            os.setresgid(user[1], user[1], user[1])
            os.setresuid(user[0], user[0], user[0])
        # a keeper killed with -9 cannot end the tree: the program then dies with it (set after
        # the user: a change of credentials clears it)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        import resource

        for name, value in limits.items():
            limit = getattr(resource, name)
            hard = value + 1 if limit == resource.RLIMIT_CPU else value  # SIGXCPU, then SIGKILL
            resource.setrlimit(limit, (value, hard))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.execvp(argv[0], argv)
    except OSError as exc:
        os.write(2, f"cannot start {argv[0]}: {exc.strerror or exc}\n".encode())
    finally:
        os._exit(127)


SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1  # linux/sockios.h, linux/if.h


def _loopback_up() -> None:
    """Bring ``lo`` up where it is down (a new network namespace starts with it down: binding
    127.0.0.1 works there, connecting does not)."""
    import fcntl
    import struct

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        request = struct.pack("16sH", b"lo", 0)
        flags = struct.unpack("16sH", fcntl.ioctl(s, SIOCGIFFLAGS, request)[:18])[1]
        if not flags & IFF_UP:
            fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH", b"lo", flags | IFF_UP))


def _listen() -> socket.socket:
    """A listening socket on 127.0.0.1 at a free port."""
    _loopback_up()
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    return server


def _hand_over(server: socket.socket, peer: socket.socket, accepted: threading.Event) -> None:
    """Accept one connection on ``server`` and send it to the arena over ``peer`` (a Unix
    socket: the connection's descriptor, ``SCM_RIGHTS``); keep none of the three. A program
    that never connects leaves ``peer`` open until the keeper exits (the arena then reads its
    end)."""
    conn, _ = server.accept()
    accepted.set()
    server.close()
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # a line at a time, no Nagle wait
    with contextlib.suppress(OSError):  # an arena gone already: the program's end is near
        socket.send_fds(peer, [b"c"], [conn.fileno()])
    conn.close()
    peer.close()


def _watch(lifeline: int) -> None:
    """Block until the lifeline ends, then stop the keeper as ``end`` would (SIGTERM)."""
    with contextlib.suppress(OSError):
        while os.read(lifeline, 1):
            pass
    os.kill(os.getpid(), signal.SIGTERM)


def _cut(lifeline: int | None) -> bool:
    """Whether the starter closed the lifeline, or died (its end of the pipe is closed)."""
    if lifeline is None:
        return False
    return bool(select.select([lifeline], [], [], 0)[0])


def _exit_as(status: int | None) -> None:
    """Exit with the program's wait ``status``: its exit code, or death by its signal."""
    if status is None:
        os._exit(137)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig not in (signal.SIGKILL, signal.SIGSTOP):  # those two have no handler to reset
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})
        os.kill(os.getpid(), sig)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


_LIMITS = {
    "--memory": "RLIMIT_AS",
    "--cpu": "RLIMIT_CPU",
    "--fsize": "RLIMIT_FSIZE",
    "--nproc": "RLIMIT_NPROC",
    "--nofile": "RLIMIT_NOFILE",
}


def main(args: list[str]) -> None:
    relay_fd = lifeline = None
    remove: str | None = None
    user: tuple[int, int] | None = None
    limits: dict[str, int] = {}
    starter = os.getppid()
    while args and args[0] != "--":
        option, value, *args = args
        if option in _LIMITS:
            limits[_LIMITS[option]] = int(value)
        elif option == "--starter":  # read by the starter itself: it may die in our first ms
            starter = int(value)
        elif option == "--relay":
            relay_fd = int(value)
        elif option == "--remove":
            remove = value
        elif option == "--lifeline":
            lifeline = int(value)
            os.set_inheritable(lifeline, False)  # the keeper's alone
        elif option == "--user":
            uid, gid = value.split(":")
            user = (int(uid), int(gid))
        elif option == "--affinity":  # before the program exists: it inherits the core
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, {int(value)})
        else:
            sys.exit(f"subreaper: unknown option {option}")
    argv = args[1:]
    if not argv:
        sys.exit("subreaper: no program given (after --)")
    import resource

    # the keeper re-raises the program's signal on itself at the end: never with a core dump
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:  # (no such prctl: an old kernel)
        os.write(2, b"subreaper: cannot be a subreaper here; only the program's group is ended\n")
    signal.pthread_sigmask(signal.SIG_BLOCK, _WATCHED)  # a relay thread inherits the mask
    server = None
    if relay_fd is not None:
        os.set_inheritable(relay_fd, False)  # the program reaches the arena by TCP only
        server = _listen()
        argv = [*argv, "127.0.0.1", str(server.getsockname()[1])]
    program = _start(argv, limits, libc, user)
    if lifeline is not None:  # its end wakes the loop below at once, as SIGTERM does
        threading.Thread(target=_watch, args=(lifeline,), daemon=True).start()
    handing: threading.Thread | None = None
    accepted = threading.Event()
    if server is not None:
        assert relay_fd is not None
        peer = socket.socket(fileno=relay_fd)
        handing = threading.Thread(target=_hand_over, args=(server, peer, accepted), daemon=True)
        handing.start()
    # the program has the streams now: holding them open would hide the end of its output
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    status: int | None = None
    while True:
        info = signal.sigtimedwait(_WATCHED, POLL_S)
        status = _reap().get(program, status)
        stopped = info is not None and info.si_signo in _STOP
        if stopped or status is not None or not _alive(starter) or _cut(lifeline):
            break
    if server is not None and handing is not None and handing.is_alive() and status is not None:
        # a program that connected and ended at once: its connection still goes to the arena
        # (which then reads its end, not "ended before it connected")
        pending = accepted.is_set()
        if not pending:
            with contextlib.suppress(OSError, ValueError):
                pending = bool(select.select([server], [], [], 0)[0])
        if pending:
            handing.join(1.0)
    status = _kill_tree().get(program, status)
    if remove is not None:
        import shutil

        shutil.rmtree(remove, ignore_errors=True)
    _exit_as(status)


if __name__ == "__main__":
    main(sys.argv[1:])
