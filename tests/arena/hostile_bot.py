"""A hostile entrant: it plays legal moves (the first legal action) and attacks on the side.

    python hostile_bot.py ATTACK [ARG ...]

At the start message it runs ATTACK with the message's ``args`` (the paths and pids it aims
at: given there, not on its command line, whose paths the sandbox would show it; in a contest,
where the start message has none, its command line's) and answers
``{"ready": true, "report": {...}}``: what the
attack reached (``won``: True when it succeeded), so a test can assert that it failed inside
the sandbox and succeeded outside it (the positive control). Then it plays. Standard library
only: it runs under any Python the sandbox offers.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sys
import time


def read_secrets(canary: str, secret_file: str) -> dict:
    """Every /proc/<pid>/environ it can read, searched for ``canary``; ``secret_file`` read."""
    found_env = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    if canary.encode() in f.read():
                        found_env.append(int(entry))
            except OSError:
                pass
    try:
        with open(secret_file) as f:
            text = f.read()
    except OSError as exc:
        text = f"! {exc.strerror}"
    return {"won": bool(found_env) or canary in text, "env": found_env, "file": text[:80]}


def write_outside(*targets: str) -> dict:
    """Write a new file, or append to an existing one (another entrant's program), at each."""
    done = []
    for target in targets:
        try:
            with open(target, "a") as f:
                f.write("# written by the hostile bot\n")
            done.append(target)
        except OSError:
            pass
    return {"won": bool(done), "written": done}


def kill(pid: str) -> dict:
    """SIGKILL process ``pid`` (an opponent, the arena's driver)."""
    try:
        os.kill(int(pid), signal.SIGKILL)
    except OSError as exc:
        return {"won": False, "error": exc.strerror}
    return {"won": True}


def peek_memory(pid: str) -> dict:
    """Read 4 KiB of process ``pid``'s heap through /proc/<pid>/mem."""
    try:
        with open(f"/proc/{pid}/maps") as f:
            heap = next(line for line in f if "[heap]" in line)
        start = int(heap.split("-")[0], 16)
        with open(f"/proc/{pid}/mem", "rb") as f:
            f.seek(start)
            data = f.read(4096)
    except (OSError, StopIteration) as exc:
        return {"won": False, "error": getattr(exc, "strerror", None) or "no heap"}
    return {"won": len(data) > 0}


def connect(port: str, unix_path: str) -> dict:
    """TCP to 127.0.0.1:``port`` (a listener of the machine's), and the Unix socket
    ``unix_path``."""
    reached = []
    try:
        with socket.create_connection(("127.0.0.1", int(port)), timeout=2) as s:
            s.sendall(b"hello from the sandbox\n")
            reached.append("tcp")
    except OSError:
        pass
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(2)
            s.connect(unix_path)
            reached.append("unix")
    except OSError:
        pass
    return {"won": bool(reached), "reached": reached}


def setns(pid: str) -> dict:
    """Join process ``pid``'s network namespace (``setns``), as root would."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    try:
        fd = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY)
    except OSError as exc:
        return {"won": False, "error": exc.strerror}
    if libc.setns(fd, 0) != 0:
        return {"won": False, "error": os.strerror(ctypes.get_errno())}
    return {"won": True}


def linger(marker: str) -> dict:
    """Leave a process behind: fork, setsid, fork again; the grandchild runs with ``marker`` in
    its command line; the bot then SIGKILLs its own parent (its keeper)."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execvp(
                sys.executable, [sys.executable, "-c", "import time; time.sleep(120)", marker]
            )
        os._exit(0)
    time.sleep(0.2)
    parent = os.getppid()
    with contextlib.suppress(OSError):  # inside the sandbox its keeper is root: refused
        os.kill(parent, signal.SIGKILL)
    return {"won": True, "parent": parent}  # whether it lingers is for the test to see


def fill_disk(megabytes: str) -> dict:
    """Write ``megabytes`` MiB into its home."""
    written = 0
    try:
        with open(os.path.join(os.environ.get("HOME", "."), "ballast"), "wb") as f:
            for _ in range(int(megabytes)):
                f.write(b"\0" * (1 << 20))
                f.flush()
                written += 1
    except OSError:
        pass
    except Exception:
        pass
    return {"won": written >= int(megabytes), "mib": written}


def fork_many(count: str) -> dict:
    """Start ``count`` processes at once."""
    children = []
    for _ in range(int(count)):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        children.append(pid)
    for pid in children:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    return {"won": len(children) >= int(count), "forked": len(children)}


def kill_named(marker: str) -> dict:
    """SIGKILL every process it can see whose command line holds ``marker`` (its opponent)."""
    killed = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if marker.encode() in f.read():
                        os.kill(int(entry), signal.SIGKILL)
                        killed.append(int(entry))
            except OSError:
                pass
    return {"won": bool(killed), "killed": killed}


def processes() -> dict:
    """The processes it can see."""
    seen = sorted(int(e) for e in os.listdir("/proc") if e.isdigit())
    return {"won": len(seen) > 5, "seen": len(seen)}


ATTACKS = {f.__name__: f for f in (read_secrets, write_outside, kill, peek_memory, connect,
                                    setns, linger, fill_disk, fork_many, processes,
                                    kill_named)}  # fmt: skip


def main() -> None:
    attack, given = sys.argv[1], sys.argv[2:]  # (args on the command line: in a contest)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a file over its bound: an error, not death
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "start":
            report = ATTACKS[attack](*msg.get("args", given))
            sys.stdout.write(json.dumps({"ready": True, "report": report}) + "\n")
        elif msg["type"] == "act":
            sys.stdout.write(json.dumps({"action": msg["legal"][0]}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
