"""The sandbox every outside program runs in: bubblewrap (``bwrap``, the tool Flatpak uses).

``command(inner, ...)`` wraps a command line (the program's keeper, ``runtime.programs.keeper``) so
that it runs:

- in new user, pid, mount, network, IPC, UTS and (where the kernel has them) cgroup namespaces,
  as nobody (uid/gid 65534, inside and, when the arena runs as root, outside too: see
  ``_user_namespace``), with no capabilities and ``no_new_privs``, in a session of its own (no
  terminal to push keystrokes into);
- seeing in ``/proc`` only its own processes: it can signal, trace or read no other;
- on a root of its own where everything is read-only but a private home (``HOME``, the working
  directory) and ``/tmp``, each a memory-backed filesystem of ``disk_bytes``;
- with read-only views of the system directories (``/usr``, ``/bin``, ``/lib*``, ``/sbin``,
  a short list of ``/etc`` files: no ``/etc/shadow``), the interpreter of this process
  (its installation, virtual environment and import path: a Python program needs nothing
  more), the program's own files (every argument that names an existing path), the caches
  Sparring's own programs load (``runtime.caches``) and the ``read_only`` paths the user names.
  Nothing else of the machine: not the user's home, not the checkout's ``data/``,
  ``mlflow.db``, ``/run``, the machine's ``/tmp`` or another entrant's files;
- with the loopback of its own network namespace only (``network=True``: the machine's);
- dying with the process that started it (``--die-with-parent``): the kernel then ends every
  process of its pid namespace, whatever it forked or detached.

``problem()`` says in one line why the sandbox cannot run here (the tool is missing, or this
machine forbids the namespaces it needs), or None. Where it cannot, the arena refuses outside
programs unless the user opts out with ``sandbox: none`` (``limits.sandbox=none``), and then
says once that the programs run with the user's rights (``warn_unsandboxed``).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from sparring.runtime import caches

TOOL = "bwrap"
PACKAGE = "bubblewrap"
MODES = ("bwrap", "none")
MODE_VARIABLE = "SPARRING_SANDBOX"  # the default of ``limits.sandbox`` where it is not set
HOME = "/home/agent"  # the program's private home and working directory
UID = GID = 65534  # nobody: the program's user, inside and (run by root) outside
CLONE_NEWUSER = 0x10000000  # linux/sched.h
# /etc holds secrets (shadow, ssh keys, credentials of services): only what programs read
ETC = (
    "alternatives",
    "ca-certificates",
    "group",
    "hosts",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "mime.types",
    "nsswitch.conf",
    "os-release",
    "passwd",
    "ssl",
)
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot run here; the message is one line saying why and what to do."""


def default_mode() -> str:
    """``$SPARRING_SANDBOX`` or ``bwrap``."""
    return os.environ.get(MODE_VARIABLE) or "bwrap"


def mode(chosen: str | None) -> str:
    """The sandbox ``chosen`` (None: ``default_mode()``); ``ValueError`` (one line) for a
    name that is none of ``MODES``."""
    found = chosen or default_mode()
    if found not in MODES:
        raise ValueError(f"sandbox={found} is not allowed: expected one of {', '.join(MODES)}")
    return found


def check_startable(argv: Sequence[str]) -> None:
    """``FileNotFoundError`` when ``argv[0]`` is no program on the sandbox's ``PATH``
    (``search_path``), as ``subprocess.Popen`` would raise had it started it itself."""
    if not argv or shutil.which(argv[0], path=search_path()) is None:
        name = argv[0] if argv else ""
        raise FileNotFoundError(errno.ENOENT, "no such program on the sandbox's PATH", name)


def install_hint() -> str:
    return f"install it with: apt-get install {PACKAGE} (Debian, Ubuntu; dnf install {PACKAGE})"


@functools.cache
def problem() -> str | None:
    """Why bubblewrap cannot sandbox a program on this machine (one line), or None when it can
    (checked once per process: a trial run of ``true`` in the very namespaces a program gets,
    ~10 ms)."""
    tool = shutil.which(TOOL)
    if tool is None:
        return f"the sandbox tool {TOOL} ({PACKAGE}) is not installed; {install_hint()}"
    try:
        launch = _launch(tool, ["true"], env={}, mounts=[], network=False, disk_bytes=1 << 20)
    except OSError as exc:
        return f"cannot make a user namespace here ({exc.strerror or exc}); {_USERNS_HINT}"
    try:
        done = subprocess.run(
            launch.argv, capture_output=True, timeout=20, pass_fds=launch.pass_fds
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{tool} does not run here ({exc})"
    finally:
        launch.close()
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()
        why = said[-1] if said else f"exit status {done.returncode}"
        return f"{tool} cannot make namespaces on this machine ({why}); {_USERNS_HINT}"
    return None


_USERNS_HINT = (
    "allow user namespaces (sysctl user.max_user_namespaces=10000 "
    "kernel.unprivileged_userns_clone=1 kernel.apparmor_restrict_unprivileged_userns=0)"
)


def require() -> str:
    """The path of ``bwrap``; ``SandboxUnavailable`` (one line) where it cannot run."""
    why = problem()
    if why is not None:
        raise SandboxUnavailable(why)
    return str(shutil.which(TOOL))


@functools.cache
def warn_unsandboxed() -> None:
    """Say once per process that outside programs run unsandboxed, with the user's rights."""
    print(
        "sandbox none: outside programs run with your rights, unsandboxed "
        f"(limits.sandbox=none, --sandbox none or {MODE_VARIABLE}=none)",
        file=sys.stderr,
        flush=True,
    )


def interpreter_paths() -> list[str]:
    """What this process's Python needs to run a program: its installation, its virtual
    environment and the folder Sparring is imported from (an editable install's ``src``).
    Not the rest of its import path: a Ray worker's holds its driver's working directory."""
    package = Path(sys.modules["sparring"].__file__ or "").resolve().parent.parent  # src/
    paths = [sys.base_prefix, sys.base_exec_prefix, sys.prefix, sys.exec_prefix, str(package)]
    paths.append(str(Path(sys.executable).resolve().parent.parent))
    return paths


def search_path() -> str:
    """``PATH`` inside the sandbox: this interpreter's ``bin`` (a virtual environment's
    ``python3`` has Sparring and its packages), then the system's."""
    return ":".join([str(Path(sys.prefix) / "bin"), "/usr/local/bin", "/usr/bin", "/bin"])


def absolute(argv: Sequence[str]) -> list[str]:
    """``argv`` with its relative paths made absolute (the program starts in its private home):
    ``argv[0]`` when it has a slash, and every other argument that names an existing file."""
    out = []
    for i, arg in enumerate(argv):
        relative = not os.path.isabs(arg)
        if relative and ((i == 0 and "/" in arg) or (i > 0 and os.path.isfile(arg))):
            arg = os.path.abspath(arg)
        out.append(arg)
    return out


def program_paths(argv: Sequence[str]) -> list[str]:
    """The program's own files: ``argv[0]`` as found on ``search_path()`` (and where its links
    lead), and every argument that names an existing absolute path."""
    found = shutil.which(argv[0], path=search_path()) if argv else None
    paths = []
    if found:
        paths += [found, os.path.realpath(found)]
    paths += [a for a in argv if os.path.isabs(a) and os.path.exists(a)]
    return paths


def _covering(paths: Iterable[str]) -> list[str]:
    """``paths`` made absolute and real, existing, without those inside another one."""
    real = sorted({os.path.realpath(p) for p in paths if p and os.path.exists(p)})
    kept: list[str] = []
    for p in real:
        if not any(p == k or p.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(p)
    return kept


def _system() -> list[str]:
    args: list[str] = []
    for top in SYSTEM:
        if os.path.islink(top):  # merged /usr: /bin -> usr/bin
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for name in ETC:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    return args


@dataclass
class Launch:
    """A sandboxed command line and the descriptors ``subprocess.Popen`` must pass to it
    (``pass_fds``); ``close`` closes this process's own (``owned``) once it started."""

    argv: list[str]
    pass_fds: tuple[int, ...]
    owned: tuple[int, ...] = ()

    def close(self) -> None:
        for fd in self.owned:
            with contextlib.suppress(OSError):
                os.close(fd)


def keeper_user() -> str | None:
    """The ``uid:gid`` the keeper runs the program as: nobody where this process is root (the
    sandbox's namespace then maps root and nobody to themselves, ``_user_namespace``); None
    where bubblewrap itself runs everything as nobody."""
    return f"{UID}:{GID}" if os.geteuid() == 0 else None


def command(
    inner: Sequence[str],
    program: Sequence[str],
    *,
    env: Mapping[str, str],
    read_only: Sequence[str] = (),
    network: bool = False,
    disk_bytes: int = 64 << 20,
    keep_fds: Sequence[int] = (),
) -> Launch:
    """``inner`` (a keeper running ``program`` as ``keeper_user()``) inside the sandbox, with
    ``env`` as its whole environment (``HOME``, ``TMPDIR`` and ``PATH`` set to the sandbox's:
    ``search_path()``); see the module docstring. ``keep_fds``: descriptors the keeper
    inherits (a relay socket). ``SandboxUnavailable`` where the sandbox cannot run."""
    tool = require()
    seen = [
        *interpreter_paths(),
        *program_paths(inner),
        *program_paths(program),
        *(str(caches.cache_home()), str(caches.kernel_root())),
        *read_only,
    ]
    mounts = [p for p in _covering(seen) if p not in SYSTEM and p != "/"]
    launch = _launch(tool, inner, env=env, mounts=mounts, network=network, disk_bytes=disk_bytes)
    launch.pass_fds += tuple(keep_fds)
    return launch


def _launch(
    tool: str,
    inner: Sequence[str],
    *,
    env: Mapping[str, str],
    mounts: Sequence[str],
    network: bool,
    disk_bytes: int,
) -> Launch:
    owned: tuple[int, ...] = ()
    if os.geteuid() == 0:
        owned = (_user_namespace(),)
        # the keeper starts as root inside, able to become nobody (and the program then never
        # root again) and to end the program's tree, in the sandbox's namespaces only
        who = ["--userns", str(owned[0]), "--cap-drop", "ALL", "--cap-add", "CAP_SETUID",
               "--cap-add", "CAP_SETGID", "--cap-add", "CAP_KILL"]  # fmt: skip
    else:
        who = ["--unshare-user", "--uid", str(UID), "--gid", str(GID), "--cap-drop", "ALL"]
    spaces = ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if not network:
        spaces.append("--unshare-net")
    args = [tool, *who, *spaces, "--hostname", "sandbox", "--die-with-parent", "--new-session",
            *_system(), "--proc", "/proc", "--dev", "/dev"]  # fmt: skip
    for private in ("/tmp", HOME):  # first: a path the program reads may lie under /tmp
        args += ["--size", str(disk_bytes), "--perms", "1777", "--tmpfs", private]
    made: set[str] = {"/", "/tmp", HOME}
    for path in mounts:
        # the folders above a view, made 0755 (bubblewrap's own would be 0700 to nobody)
        for parent in reversed(Path(path).parents):
            if str(parent) not in made:
                made.add(str(parent))
                args += ["--perms", "0755", "--dir", str(parent)]
        args += ["--ro-bind", path, path]
    args += ["--chdir", HOME, "--clearenv"]
    for key, value in {**env, "HOME": HOME, "TMPDIR": "/tmp", "PATH": search_path()}.items():
        args += ["--setenv", key, value]
    return Launch([*args, "--", *inner], owned, owned)


def _user_namespace() -> int:
    """(as root) A new user namespace where root and nobody are themselves, as a descriptor for
    ``bwrap --userns``. Bubblewrap then mounts as root (it reaches ``/root/.pyenv``) and the
    keeper runs the program as nobody: a user the kernel bounds by ``RLIMIT_NPROC`` (it never
    bounds root) and who owns none of the files it is shown, nor its keeper (which it then
    cannot kill). A namespace of bubblewrap's own would map the program to root outside."""
    ready_r, ready_w = os.pipe()
    hold_r, hold_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: unshare, say so, wait until its namespace is taken, exit
        try:
            os.close(ready_r)
            os.close(hold_w)
            libc = ctypes.CDLL(None, use_errno=True)
            os.write(ready_w, b"1" if libc.unshare(CLONE_NEWUSER) == 0 else b"0")
            os.read(hold_r, 1)
        finally:
            os._exit(0)
    os.close(ready_w)
    os.close(hold_r)
    try:
        if os.read(ready_r, 1) != b"1":
            raise OSError(errno.EPERM, "unshare(CLONE_NEWUSER) refused")
        for name in ("uid_map", "gid_map"):
            with open(f"/proc/{pid}/{name}", "w") as f:
                f.write(f"0 0 1\n{UID} {UID} 1\n")
        return os.open(f"/proc/{pid}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
    finally:
        os.close(ready_r)
        os.close(hold_w)  # the child's read ends: it exits
        os.waitpid(pid, 0)
