"""The layers of ``src/sparring`` read top-down: an import only ever points down (or within its
own room), kernels never reach Ray or MLflow, and the checkout is found in one place.

The rules are stated once, in ``LAYERS`` and the checks below; docs/ARCHITECTURE.md explains
them. Each rule has a planted violation that it must catch (a check that cannot fail is a
defect).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "sparring"

# Top to bottom. A room (a subpackage or top-level module of sparring) may import its own modules
# and any room in a lower layer; never a room above it, and never a peer in its own layer (the
# games know nothing of each other; the platform services stay independent).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("cli",),  # the `sparring` command; `results` lives here
    ("launch",),  # the Hydra entry, submit, sweeps, cluster config, preflight, screenshots
    ("pipelines",),  # pipeline bodies only
    ("tuning",),  # Ray Tune searches over any pipeline
    ("services", "champions"),  # the pipeline frame + deal sets; registry, claims, notify
    ("reporting",),  # console tables, plots, run queries for summaries
    ("config",),  # typed schemas
    ("arena",),  # any agent against any other: specs, the line protocol, the sandbox, SPRT
    ("ga", "modeling"),  # learning on top of the games
    ("poker", "mus", "flagbots", "eleusis", "conformance", "games"),  # the games
    ("game_api", "seeding", "kernel_cache", "kernel_locator", "__init__"),  # every game shares
    ("runtime",),  # infrastructure: storage, datasets, Ray, MLflow helpers, errors
)
RANK = {room: depth for depth, rooms in enumerate(LAYERS) for room in rooms}
DOMAINS = ("poker", "ga", "mus", "modeling", "flagbots", "eleusis")
EDGE_ONLY = ("ray", "mlflow")
# Peers that may import each other: (importer, imported). The package's __init__ points numba's
# cache at the kernel cache before any kernel module is imported.
PEERS_ALLOWED: frozenset[tuple[str, str]] = frozenset({("__init__", "kernel_cache")})
CHECKOUT_FINDER = "runtime/checkout.py"  # the one module that locates the checkout


def imported_modules(source: str, filename: str = "<planted>") -> set[str]:
    """Every module a file imports, at any depth (function-level imports count too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def room_of(module: str) -> str:
    """``sparring.ga.league`` -> ``ga``; ``sparring`` itself -> ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def layer_violations(room: str, source: str) -> list[str]:
    """The imports of a file in ``room`` that point up a layer or across to a peer."""
    found = []
    for module in sorted(imported_modules(source)):
        if not module.startswith("sparring."):
            continue  # (``import sparring`` itself is the package every module is in)
        target = room_of(module)
        if target == room or target not in RANK:
            continue
        if RANK[target] < RANK[room]:
            found.append(f"{room} -> {module} (up from layer {RANK[room]} to {RANK[target]})")
        elif RANK[target] == RANK[room] and (room, target) not in PEERS_ALLOWED:
            found.append(f"{room} -> {module} (across to a peer)")
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


def edge_imports(path: Path, source: str | None = None) -> list[str]:
    """The chains by which a file reaches ray or mlflow, through sparring modules too."""
    chains: list[str] = []
    seen, todo = {path}, [(path, source, path.name)]
    while todo:
        current, text, chain = todo.pop()
        for module in sorted(imported_modules(text if text is not None else current.read_text())):
            if module.split(".")[0] in EDGE_ONLY:
                chains.append(f"{chain} -> {module}")
            target = module_file(module)
            if target is not None and target not in seen:
                seen.add(target)
                todo.append((target, None, f"{chain} -> {module}"))
    return chains


def finds_checkout(source: str) -> bool:
    """Does the file locate the checkout by climbing from its own path (``parents[3]``)?"""
    for node in ast.walk(ast.parse(source)):
        value = getattr(node, "value", None)
        if isinstance(node, ast.Subscript) and getattr(value, "attr", None) == "parents":
            return True
    return False


def _files() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


def _room(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def test_every_room_has_a_layer():
    rooms = {_room(path) for path in _files()}
    assert rooms <= set(RANK), f"rooms without a layer in LAYERS: {sorted(rooms - set(RANK))}"


@pytest.mark.parametrize("room", sorted(RANK))
def test_imports_point_down(room):
    offenders = [
        f"{path.relative_to(SRC)}: {v}"
        for path in _files()
        if _room(path) == room
        for v in layer_violations(room, path.read_text())
    ]
    assert not offenders, offenders


@pytest.mark.parametrize("domain", DOMAINS)
def test_domain_packages_import_neither_ray_nor_mlflow(domain):
    offenders = [c for path in sorted((SRC / domain).rglob("*.py")) for c in edge_imports(path)]
    assert not offenders, offenders


def test_the_checkout_is_found_in_one_place():
    finders = [str(path.relative_to(SRC)) for path in _files() if finds_checkout(path.read_text())]
    assert finders == [CHECKOUT_FINDER]


def test_the_pipelines_package_holds_bodies_only():
    """Every module of ``sparring.pipelines`` is one pipeline's body: it defines ``run`` and a
    pipeline script of that name exists."""
    scripts = {p.stem for p in (SRC.parents[1] / "pipelines").glob("*.py")}
    for path in sorted((SRC / "pipelines").glob("*.py")):
        if path.name == "__init__.py":
            continue
        tree = ast.parse(path.read_text())
        functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        assert "run" in functions, f"{path.name} is not a pipeline body (no run)"
        assert path.stem in scripts, f"{path.name} has no pipelines/{path.stem}.py"


# --- each rule catches a planted violation ------------------------------------------------


@pytest.mark.parametrize("depth", range(1, len(LAYERS)))
def test_a_planted_upward_import_is_caught(depth):
    """A file in every layer below the top importing a room of the layer just above it."""
    room, above = LAYERS[depth][0], LAYERS[depth - 1][0]
    planted = f"def f():\n    from sparring.{above}.anything import thing\n"
    assert layer_violations(room, planted), (room, above)
    assert not layer_violations(above, f"from sparring.{room}.anything import thing\n")


def test_a_planted_peer_import_is_caught():
    assert layer_violations("poker", "import sparring.mus.cards\n")
    assert layer_violations("services", "from sparring.champions import registry\n")


def test_a_planted_edge_import_is_caught(tmp_path):
    bad = tmp_path / "bad.py"
    source = "def f():\n    import ray\n    from mlflow.tracking import MlflowClient\n"
    assert {"ray", "mlflow.tracking"} <= imported_modules(source)
    assert edge_imports(bad, source)
    # and through our own modules: the services layer reaches Ray
    assert edge_imports(SRC / "services" / "dealsets.py")


def test_a_planted_checkout_finder_is_caught():
    assert finds_checkout("from pathlib import Path\nROOT = Path(__file__).parents[3]\n")
    assert not finds_checkout("from sparring.runtime.checkout import ROOT\n")
