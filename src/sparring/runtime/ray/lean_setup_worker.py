"""Start a worker of the local head without importing Ray twice.

Every driver that joins the local head gives its workers a runtime environment (its variables
and working directory, ``local_head.driver_runtime_env``). For such a job the raylet does not
start ``default_worker.py`` directly but Ray's ``setup_worker.py``, which imports all of Ray
(~0.7 CPU-seconds) only to set the environment's variables and exec the real worker, which
imports Ray again. A tiny evolve on the shared head starts three workers: ~2 CPU-seconds per
pipeline spent on imports thrown away at once.

The local head points Ray at this file instead (``local_head.serve``). For the one kind of
runtime environment Sparring's drivers make (variables only, this interpreter, a Python worker)
it does what Ray's ``RuntimeEnvContext.exec_worker`` does, with the standard library alone:
the variables set (``${VAR}`` expanded as Ray expands it), then the worker exec'd with the
same arguments. Anything else (a command prefix, another interpreter, a container, another
language) goes to Ray's own ``setup_worker.py`` with the arguments unchanged.

It runs as a script (``python .../lean_setup_worker.py <worker args> --language=...``): the
raylet appends ``--language``, ``--runtime-env-hash`` and ``--serialized-runtime-env-context``
after the worker's own arguments, and drops this file from the command when a job has no
runtime environment (it finds it by the name ``setup_worker.py`` in its path).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys

CONTEXT = "--serialized-runtime-env-context="
LANGUAGE = "--language="
# What a context may hold for the short path: variables, and this interpreter to run.
PLAIN_KEYS = {"command_prefix", "env_vars", "py_executable", "override_worker_entrypoint",
              "java_jars"}  # fmt: skip


def ray_setup_worker() -> str:
    """The path of Ray's own ``setup_worker.py`` (found without importing Ray)."""
    spec = importlib.util.find_spec("ray")
    assert spec is not None and spec.submodule_search_locations, "ray is not installed"
    package = next(iter(spec.submodule_search_locations))
    return os.path.join(package, "_private", "workers", "setup_worker.py")


def plain_context(argv: list[str]) -> tuple[dict[str, str], str, list[str]] | None:
    """The variables, interpreter and worker arguments of a variables-only Python worker;
    None when the command asks for anything else (Ray's ``setup_worker.py`` then runs it)."""
    language = [a[len(LANGUAGE) :] for a in argv if a.startswith(LANGUAGE)]
    serialized = [a[len(CONTEXT) :] for a in argv if a.startswith(CONTEXT)]
    if language != ["PYTHON"] or len(serialized) != 1:
        return None
    try:
        context = json.loads(serialized[0])
    except ValueError:
        return None
    if not isinstance(context, dict) or set(context) - PLAIN_KEYS:
        return None
    if context.get("command_prefix") or context.get("override_worker_entrypoint"):
        return None
    python = context.get("py_executable") or sys.executable
    if os.path.realpath(python) != os.path.realpath(sys.executable):
        return None
    variables = context.get("env_vars") or {}
    rest = [a for a in argv if not a.startswith((LANGUAGE, CONTEXT))]
    return variables, python, rest


def expanded(value: str) -> str:
    """A variable's value as Ray sets it: ``$X``/``${X}`` expanded, unknown ``${X}`` dropped."""
    return re.sub(r"\$\{[A-Z0-9_]+\}", "", os.path.expandvars(value))


def main(argv: list[str]) -> None:
    plain = plain_context(argv)
    if plain is None:
        os.execv(sys.executable, [sys.executable, ray_setup_worker(), *argv])
    variables, python, rest = plain
    for key, value in variables.items():
        os.environ[key] = expanded(value)
    os.execv(python, [python, *rest])


if __name__ == "__main__":
    main(sys.argv[1:])
