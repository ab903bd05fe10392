"""A Ray task's worker imports the module its function is defined in: every function handed to
``parallel_map`` lives where importing it brings no MLflow and no Hydra (a pipeline body does:
~1.5 s of CPU for every new worker, and a pipeline run starts a worker per CPU)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
HEAVY = ("mlflow", "hydra")  # what a task's module must not import


def task_modules(source: str, module: str) -> dict[str, str]:
    """``{task name: module defining it}`` for every ``parallel_map(fn, ...)`` call in
    ``source`` (the source of ``module``) whose ``fn`` is a name defined or imported there."""
    tree = ast.parse(source)
    where = {node.name: module for node in tree.body if isinstance(node, ast.FunctionDef)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            where.update({(a.asname or a.name): node.module for a in node.names})
    found = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name)):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        if name == "parallel_map" and node.args[0].id in where:
            found[node.args[0].id] = where[node.args[0].id]
    return found


def heavy_imports(modules: list[str]) -> dict[str, list[str]]:
    """Import ``modules`` in order in a fresh interpreter: for the first one that brings any of
    ``HEAVY``, which ones (the check stops there: what it brought stays imported)."""
    probe = (
        "import importlib, json, sys\n"
        f"for m in {modules!r}:\n"
        "    importlib.import_module(m)\n"
        f"    heavy = [h for h in {HEAVY!r} if h in sys.modules]\n"
        "    if heavy:\n"
        "        print(json.dumps({m: heavy}))\n"
        "        break\n"
        "else:\n"
        "    print('{}')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def all_tasks() -> dict[str, str]:
    found: dict[str, str] = {}
    for path in sorted((SRC / "sparring").rglob("*.py")):
        module = ".".join(path.relative_to(SRC).with_suffix("").parts).removesuffix(".__init__")
        found.update(task_modules(path.read_text(), module))
    return found


def test_every_ray_task_is_defined_where_a_worker_imports_no_mlflow_or_hydra():
    tasks = all_tasks()
    # the pipelines' tasks: evolve, equity, deal sets, search bench (3), validate, eleusis,
    # league, arena
    assert len(tasks) >= 10, tasks
    assert not any(m.startswith("sparring.pipelines.") for m in tasks.values()), tasks
    assert heavy_imports(sorted(set(tasks.values()))) == {}


def test_a_task_defined_in_a_pipeline_body_is_caught():
    planted = "from sparring.pipelines.evolve import run\nparallel_map(run, [1, 2])\n"
    tasks = task_modules(planted, "sparring.pipelines.planted")
    assert tasks == {"run": "sparring.pipelines.evolve"}
    assert "mlflow" in heavy_imports(["sparring.pipelines.evolve"])["sparring.pipelines.evolve"]
