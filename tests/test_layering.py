"""Kernels are pure, Ray lives at the edge: domain packages import neither ray nor mlflow."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "sparring"
DOMAINS = ("poker", "ga", "mus", "modeling", "flagbots", "eleusis")
EDGE_ONLY = ("ray", "mlflow")


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at any depth (function-level imports count too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def module_file(module: str) -> Path | None:
    """The file of a ``sparring`` module (None for anything else)."""
    if not module.startswith("sparring."):
        return None
    base = SRC.parent.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def edge_imports(path: Path) -> list[str]:
    """The chains by which ``path`` reaches ray or mlflow, through sparring modules too."""
    chains, seen, todo = [], {path}, [(path, str(path.relative_to(SRC)))]
    while todo:
        current, chain = todo.pop()
        for module in sorted(imported_modules(current)):
            if module.split(".")[0] in EDGE_ONLY:
                chains.append(f"{chain} -> {module}")
            target = module_file(module)
            if target is not None and target not in seen:
                seen.add(target)
                todo.append((target, f"{chain} -> {module}"))
    return chains


@pytest.mark.parametrize("domain", DOMAINS)
def test_domain_packages_import_neither_ray_nor_mlflow(domain):
    offenders = [c for path in sorted((SRC / domain).rglob("*.py")) for c in edge_imports(path)]
    assert not offenders, offenders


def test_the_check_sees_a_violation(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    import ray\n    from mlflow.tracking import MlflowClient\n")
    assert {"ray", "mlflow.tracking"} <= imported_modules(bad)
    # and through our own modules: the pipelines layer reaches Ray
    assert edge_imports(SRC / "pipelines" / "dealsets.py")
