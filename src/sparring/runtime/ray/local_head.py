"""One local Ray per machine: a head that Sparring starts on first need and later drivers join.

``ray=local`` used to start a whole Ray (about nine processes, ~1.6 GB, 5-10 s) inside every
pipeline's driver. Now the first driver on a machine starts a *head*, a small process running
a loopback-only Ray, and every later driver joins it:

    python -m sparring.runtime.ray.local_head serve   # what ensure() starts; not run by hand
    sparring ray status | sparring ray stop       # see it, end it (by its PID only)

- **Where**: one head per user and Python environment (the venv): its state lives in
  ``$SPARRING_RAY_HOME`` (default ``/tmp/sparring-<uid>/ray-<hash of sys.prefix>``), a head
  file with its PID, the PID's start time and its GCS address, written atomically once Ray is
  up. Two checkouts with their own venvs never run each other's code.
- **Starting**: under an exclusive lock on ``head.lock``, so six pipelines started at the same
  moment start one head and all join it.
- **Stale heads**: a head file whose process is gone (or is another process with a reused PID)
  or whose GCS does not answer is removed and a new head started.
- **Ending**: the head ends when no driver has been connected for ``SPARRING_RAY_IDLE_S``
  seconds (default 600), on SIGTERM (``sparring ray stop``), and its Ray processes never
  outlive it (``runtime.ray.reaper``, as for an embedded Ray).
- **Its state file** is rewritten by the head within a second if it is removed, and ``sparring
  ray status | stop`` find a head from its process when the file is gone. A head whose Ray
  session directory (``/tmp/ray/session_*``) is removed cannot start workers: it says so in its
  log and ends, and drivers on it stop with one line (``runtime.ray.health``).
- **Its token**: a driver whose Ray token is not the head's (another ``HOME``) is refused in one
  line before it connects, naming where each token comes from.
- **Workers** of joining drivers start through ``lean_setup_worker`` (Ray's own launcher
  imports Ray once more per worker; ``SPARRING_RAY_SETUP_WORKER=ray`` brings it back).
- Workers of a joining driver get the driver's ``SPARRING_*``, ``NUMBA_*``, storage-credential
  and ``PYTHONPATH`` variables and start in its working directory (a raylet would give them
  the head's), and Ray puts the driver's script directory and working directory on their
  ``sys.path``: as in an embedded Ray.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from sparring.runtime.errors import UsageError
from sparring.runtime.processes import process_start

SETUP_WORKER_VAR = "SPARRING_RAY_SETUP_WORKER"
IDLE_S = 600.0  # a head with no driver for this long ends itself
START_TIMEOUT_S = 180.0  # a loaded 2-core machine can take a minute to start Ray
POLL_S = 1.0
# What a joining driver's workers get from its environment: Sparring's and numba's settings,
# storage credentials, the import path.
PASSED_ENV = ("SPARRING_", "NUMBA_", "AWS_", "GOOGLE_", "AZURE_", "PYTHONPATH")


@dataclass(frozen=True)
class Head:
    """A running head: its process (pid and start time) and where its GCS listens."""

    pid: int
    start: str
    address: str
    num_cpus: int
    python: str
    started_at: float
    auth_mode: str = "token"  # RAY_AUTH_MODE of the head; a joining driver must use the same
    token: str = ""  # a fingerprint of the head's Ray token (``token_fingerprint``), "" for none
    token_from: str = ""  # where the head's token came from, for a driver whose token differs


class HeadError(UsageError):
    """The local head cannot be started or joined (one line: what happened, where the log is)."""


def home() -> Path:
    """This environment's head directory (``$SPARRING_RAY_HOME`` when set)."""
    given = os.environ.get("SPARRING_RAY_HOME")
    if given:
        return Path(given)
    digest = hashlib.sha256(sys.prefix.encode()).hexdigest()[:12]
    return Path("/tmp") / f"sparring-{os.getuid()}" / f"ray-{digest}"


def idle_s() -> float:
    """How long a head waits without a driver before it ends (``$SPARRING_RAY_IDLE_S``)."""
    try:
        return float(os.environ.get("SPARRING_RAY_IDLE_S", IDLE_S))
    except ValueError:
        return IDLE_S


def _head_file(where: Path) -> Path:
    return where / "head.json"


def log_file(where: Path) -> Path:
    """Where the head's own output goes (Ray's logs stay in Ray's session directory)."""
    return where / "head.log"


def read(where: Path | None = None) -> Head | None:
    """The head the state file describes, None when there is none (or it is unreadable)."""
    try:
        return Head(**json.loads(_head_file(where or home()).read_text()))
    except (OSError, ValueError, TypeError):
        return None


def alive(head: Head) -> bool:
    """Whether the head's process still runs (the same process: its start time matches)."""
    return process_start(head.pid) == head.start


def _answers(address: str, timeout_s: float = 5.0) -> bool:
    """Whether a GCS listens at ``host:port`` (a TCP connect, no Ray client needed)."""
    import socket

    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout_s):
            return True
    except (OSError, ValueError):
        return False


LOCK_SAY_S = 5.0  # waiting longer than this for the head's lock is said once
LOCK_WAIT_S = 180.0  # a head starts in well under this; longer, the holder is stuck


@contextlib.contextmanager
def _locked(where: Path, wait_s: float | None = None) -> Iterator[None]:
    """The head's lock (``head.lock``), held while the head is checked or started. Another
    process may hold it while it starts the head: after ``LOCK_SAY_S`` that is said once,
    naming the holder; after ``wait_s`` (``LOCK_WAIT_S``) it is a ``HeadError``, one line."""
    wait_s = LOCK_WAIT_S if wait_s is None else wait_s
    where.mkdir(parents=True, exist_ok=True)
    with open(where / "head.lock", "a+") as lock:
        began, said = time.monotonic(), False
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                waited = time.monotonic() - began
                holder = _lock_holder(lock.fileno())
                who = f"process {holder}" if holder else "another process"
                if waited >= wait_s:
                    raise HeadError(
                        f"the local Ray head's lock {where / 'head.lock'} has been held by {who} "
                        f"for {waited:.0f} s: if it is not starting a head, end it"
                    ) from None
                if waited >= LOCK_SAY_S and not said:
                    print(f"waiting for the local Ray head's lock ({who} holds it: starting "
                          "the head?)", file=sys.stderr, flush=True)  # fmt: skip
                    said = True
                time.sleep(0.1)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _lock_holder(fd: int) -> int | None:
    """The pid holding an flock on the file open at ``fd`` (from ``/proc/locks``), or None."""
    inode = os.fstat(fd).st_ino
    try:
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        # "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" (a waiter's line starts "->")
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5].endswith(f":{inode}"):
            return int(fields[4]) if fields[4].isdigit() else None
    return None


def ensure(num_cpus: int | None = None, where: Path | None = None) -> Head:
    """The running head of this environment, started (or a stale one replaced) when needed.

    ``num_cpus`` is used only when a new head starts (null = every core)."""
    where = where or home()
    with _locked(where):
        head = find(where)
        if head is not None and alive(head) and _answers(head.address):
            return head
        if head is not None:
            _end(head)  # stale: its process is gone, or its GCS does not answer
            _head_file(where).unlink(missing_ok=True)
        return _start(where, num_cpus)


def find(where: Path | None = None) -> Head | None:
    """The head of ``where`` as its file says, waiting the moment a running head takes to
    write its file again after it was removed; None when no head's file can be read."""
    where = where or home()
    return read(where) or _rewritten(where)


def _rewritten(where: Path) -> Head | None:
    """The head file a running head rewrites after it was removed (within ``POLL_S``), or None
    when no head of ``where`` runs: not a second head beside a live one."""
    if not serving(where):
        return None
    deadline = time.monotonic() + 5 * POLL_S
    while time.monotonic() < deadline:
        time.sleep(0.1)
        head = read(where)
        if head is not None:
            return head
    return None


def serving(where: Path | None = None) -> list[int]:
    """The PIDs of the head processes of ``where`` (found from their command lines: for when
    the head file is gone)."""
    wanted = ["-m", "sparring.runtime.ray.local_head", "serve", str(where or home())]
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        if args[1:5] == wanted:
            found.append(int(entry.name))
    return sorted(found)


def token_fingerprint(environ: Mapping[str, str] | None = None) -> tuple[str, str]:
    """A fingerprint of the Ray token a process with ``environ`` uses, as Ray looks for it
    (``RAY_AUTH_TOKEN``, the file ``RAY_AUTH_TOKEN_PATH`` names, ``~/.ray/auth_token``), and
    where it comes from; the fingerprint is "" when there is no token there."""
    environ = os.environ if environ is None else environ
    if environ.get("RAY_AUTH_TOKEN"):
        token, source = environ["RAY_AUTH_TOKEN"], "RAY_AUTH_TOKEN"
    else:
        home_dir = environ.get("HOME") or str(Path.home())
        path = environ.get("RAY_AUTH_TOKEN_PATH") or f"{home_dir}/.ray/auth_token"
        source = path
        try:
            token = Path(path).read_text()
        except OSError:
            token = ""
    token = token.strip()
    return (hashlib.sha256(token.encode()).hexdigest()[:16] if token else "", source)


def check_token(head: Head) -> None:
    """A ``HeadError`` when this process's Ray token is not the one ``head`` runs with: Ray
    would answer with twenty ``InvalidAuthToken`` lines and a timeout."""
    if head.auth_mode != "token" or not head.token:
        return
    mine, source = token_fingerprint()
    if mine == head.token:
        return
    have = f"the Ray token at {source}" if mine else f"no Ray token (none at {source})"
    raise HeadError(
        f"this process has {have}, not the one the local Ray head (pid {head.pid}) was started "
        f"with ({head.token_from}): run with that HOME, or set "
        f"RAY_AUTH_TOKEN_PATH={head.token_from}, or end the head (sparring ray stop)"
    )


def setup_worker() -> str:
    """Which launcher starts the workers of joining drivers (``$SPARRING_RAY_SETUP_WORKER``):
    ``lean`` (the default: ``lean_setup_worker``) or ``ray`` (Ray's own ``setup_worker.py``,
    ~0.7 CPU-seconds more per worker; the way back if the lean one ever misbehaves)."""
    chosen = os.environ.get(SETUP_WORKER_VAR) or "lean"
    if chosen not in ("lean", "ray"):
        raise HeadError(
            f"{SETUP_WORKER_VAR}={chosen} is not allowed: expected lean (the default) or ray"
        )
    return chosen


def _start(where: Path, num_cpus: int | None) -> Head:
    setup_worker()  # a bad value is the caller's error, not a head that dies while starting
    command = [sys.executable, "-m", "sparring.runtime.ray.local_head", "serve", str(where)]
    if num_cpus is not None:
        command += ["--num-cpus", str(num_cpus)]
    with open(log_file(where), "ab") as log:
        # Its own session and no inherited pipes: a caller reading our output (CI, a test's
        # subprocess.run) is not held open by the head, nor is the head hit by its Ctrl-C.
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd="/",
            env={
                # Ray's log monitor lists the log directory ten times a second until it holds
                # 1,000 files, and every driver that joins leaves two there: a head that has
                # served a few hundred drivers spent ~6% of a core on it. From the first file,
                # the list is refreshed every 0.5 s (new workers' output reaches their drivers
                # up to half a second later; no line is lost).
                "RAY_LOG_MONITOR_MANY_FILES_THRESHOLD": "0",
                **head_environment(os.environ),
                "RAY_USAGE_STATS_ENABLED": "0",
                # Token auth as Ray 2.60 defaults to for a new local Ray, but said explicitly:
                # a joining driver with RAY_AUTH_MODE unset would otherwise try without one.
                "RAY_AUTH_MODE": os.environ.get("RAY_AUTH_MODE") or "token",
            },
        )
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        head = read(where)
        if head is not None and head.pid == process.pid:
            return head
        if process.poll() is not None:
            raise HeadError(
                f"the local Ray head exited with status {process.returncode} while starting: "
                f"{_last_line(log_file(where))} (log: {log_file(where)}); retry, or use "
                "ray=embedded"
            )
        time.sleep(0.2)
    _end_process(process.pid)
    raise HeadError(
        f"the local Ray head did not start within {START_TIMEOUT_S:.0f} s (the machine may be "
        f"overloaded; log: {log_file(where)}); retry later, or use ray=embedded"
    )


def head_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """What the head (and so every worker it starts) inherits of the environment of the driver
    that happened to start it: not that driver's own variables (``PASSED_ENV``: a sweep's id,
    a submitted commit, its credentials, its import path), which each driver gives its own
    workers (``driver_runtime_env``); left in the head, they would reach the workers of every
    later driver that does not set them (a search after a sweep tagged its trials with the
    sweep's id). The head's own settings (``SPARRING_RAY_*``) stay."""
    return {
        key: value
        for key, value in environ.items()
        if not key.startswith(PASSED_ENV) or key.startswith("SPARRING_RAY_")
    }


STOPPING = "stopping: "  # how the head's log says why it ended itself


def last_words(where: Path | None = None) -> str | None:
    """Why the head ended itself, from its log's last line; None when it did not say."""
    line = _last_line(log_file(where or home()))
    return line.removeprefix(STOPPING) if line.startswith(STOPPING) else None


def _last_line(path: Path) -> str:
    try:
        lines = [line for line in path.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return "no log"
    return lines[-1][:300] if lines else "no output"


def _end_process(pid: int, timeout_s: float = 30.0) -> bool:
    """SIGTERM ``pid`` and wait; SIGKILL after ``timeout_s``. True when it was running."""
    start = process_start(pid)
    if start is None:
        return False
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and process_start(pid) == start:
        time.sleep(0.1)
    if process_start(pid) == start:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return True


def _end(head: Head) -> bool:
    """End ``head``'s process if it is still that process; True when it was running."""
    return alive(head) and _end_process(head.pid)


def stop(where: Path | None = None) -> Head | None:
    """End this environment's head (only it: by its PID and start time); returns it, or None
    when none was running."""
    where = where or home()
    try:
        with _locked(where):
            head = read(where)
            _head_file(where).unlink(missing_ok=True)
    except OSError:  # the state directory cannot be used: the head is found by its process
        head = None
    if head is not None and _end(head):
        return head
    for pid in serving(where):  # a head whose file was removed: found from its process
        start = process_start(pid)
        if start is not None and _end_process(pid):
            return Head(pid=pid, start=start, address="", num_cpus=0, python="", started_at=0)
    return None


DRIVER_CWD = "SPARRING_DRIVER_CWD"


def driver_runtime_env() -> dict[str, object]:
    """The job runtime env of a driver joining the head: its workers get the driver's
    variables named in ``PASSED_ENV`` and its ``PATH``, and start in its working directory, as the
    workers of an embedded Ray do (a raylet would give them the head's: ``/``)."""
    env = {k: v for k, v in os.environ.items() if k.startswith(PASSED_ENV)}
    # and its PATH: the head has the PATH of whichever driver started it (cron's /usr/bin:/bin,
    # a test's venv only), and a worker that looks up a program (`sh`, `bwrap`) must find it
    # where this driver would
    if "PATH" in os.environ:
        env["PATH"] = os.environ["PATH"]
    env[DRIVER_CWD] = os.getcwd()
    return {"env_vars": env, "worker_process_setup_hook": f"{__name__}.enter_driver_cwd"}


def enter_driver_cwd() -> None:
    """Worker setup hook: start where the driver runs (relative paths mean the same)."""
    with contextlib.suppress(KeyError, OSError):
        os.chdir(os.environ[DRIVER_CWD])


# --- the head process -------------------------------------------------------------------------


def _live_drivers(me: int) -> int:
    """Drivers connected to this head other than its own (the GCS job table)."""
    from ray._private.state import state

    return sum(1 for job in state.job_table() if not job["IsDead"] and job["DriverPid"] != me)


def use_lean_setup_worker() -> None:
    """Start the workers of joining drivers through ``lean_setup_worker`` (not Ray's
    ``setup_worker.py``, which imports Ray only to set their variables): ~0.7 CPU-seconds less
    per worker. Ray joins its workers' directory with this name, and an absolute name wins."""
    from ray._private import ray_constants

    from sparring.runtime.ray import lean_setup_worker

    ray_constants.SETUP_WORKER_FILENAME = str(Path(lean_setup_worker.__file__).resolve())


def serve(where: Path, num_cpus: int | None, idle_s: float) -> None:
    """Run the head until it is idle for ``idle_s`` or terminated; the head file says where."""
    import ray

    from sparring.runtime.ray.loopback import loopback_only
    from sparring.runtime.ray.reaper import start_reaper

    loopback_only()
    if setup_worker() == "lean":
        use_lean_setup_worker()
    ray.init(
        address="local",
        num_cpus=num_cpus,
        include_dashboard=False,
        namespace="sparring",
        log_to_driver=False,
        configure_logging=False,
    )
    start_reaper()  # its Ray processes end with it, even after a kill -9
    stopping: list[int] = []  # after ray.init, which installs a SIGTERM handler of its own
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.append(signum))
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    me = os.getpid()
    token, token_from = token_fingerprint()  # (made by ray.init when there was none)
    head = Head(
        pid=me,
        start=process_start(me) or "",
        address=ray.get_runtime_context().gcs_address,
        num_cpus=int(ray.cluster_resources().get("CPU", 0)),
        python=sys.executable,
        started_at=time.time(),
        auth_mode=os.environ.get("RAY_AUTH_MODE", "token"),
        token=token,
        token_from=token_from,
    )
    _write(where, head)
    print(f"local Ray head {me} at {head.address}, {head.num_cpus} CPUs", flush=True)
    session = Path(ray._private.worker._global_node.get_session_dir_path())  # type: ignore[attr-defined]
    idle_since = time.monotonic()
    while not stopping:
        time.sleep(POLL_S)
        if not session.is_dir():  # Ray can no longer start a worker: end, and be replaced
            print(f"{STOPPING}its Ray session directory {session} was removed", flush=True)
            break
        if read(where) is None:  # the file (or its directory) was removed: say where we are
            with contextlib.suppress(OSError), _locked(where):  # (unwritable: found by process)
                if read(where) is None:
                    _write(where, head)
        if _live_drivers(me):
            idle_since = time.monotonic()
        elif time.monotonic() - idle_since >= idle_s:
            with _locked(where):  # no driver may read the file while the head goes
                if _live_drivers(me):
                    continue
                _forget(where, head)
            print(f"{STOPPING}idle for {idle_s:.0f} s", flush=True)
            break
    _forget(where, head)
    ray.shutdown()


def _write(where: Path, head: Head) -> None:
    tmp = _head_file(where).with_suffix(f".{head.pid}.tmp")
    tmp.write_text(json.dumps(asdict(head)))
    os.replace(tmp, _head_file(where))


def _forget(where: Path, head: Head) -> None:
    """Remove the head file if it is still this head's."""
    if read(where) == head:
        _head_file(where).unlink(missing_ok=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m sparring.runtime.ray.local_head")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("serve", help="run a head (ensure() starts it; not run by hand)")
    run.add_argument("where", type=Path)
    run.add_argument("--num-cpus", type=int, default=None)
    args = parser.parse_args(argv)
    serve(args.where, args.num_cpus, idle_s())


if __name__ == "__main__":
    main()
