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
    ("frame", "champions"),  # the pipeline frame + deal sets; registry, claims, notify
    ("reporting",),  # console tables, plots, run queries for summaries
    ("config",),  # typed schemas
    ("arena",),  # any agent against any other: specs, the line protocol, the sandbox, SPRT
    ("ga", "modeling", "interop"),  # learning on top of the games; the games in RL APIs
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

# Inside ``runtime``, rooms by kind, top to bottom, the same rule: ``explain`` reads the failures
# of the kinds below it; MLflow records which nodes and code Ray used; Ray, data and outside
# programs stand on the plain modules (errors, config, signals, processes, ...), which are one
# layer of their own and may import each other.
RUNTIME_LAYERS: tuple[tuple[str, ...], ...] = (
    ("explain",),
    ("tracking",),
    ("ray",),
    ("programs", "storage"),
)
RUNTIME_KINDS = {room for rooms in RUNTIME_LAYERS for room in rooms}


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
    """``sparring.ga.round_robin`` -> ``ga``; ``sparring`` itself -> ``__init__``."""
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


def runtime_violations(room: str, source: str) -> list[str]:
    """The imports of a file in ``runtime``'s room ``room`` that point up or across a kind
    (a plain module, not in ``RUNTIME_LAYERS``, ranks below every kind)."""
    rank = {r: depth for depth, rooms in enumerate(RUNTIME_LAYERS) for r in rooms}
    base = len(RUNTIME_LAYERS)
    found = []
    for module in sorted(imported_modules(source)):
        parts = module.split(".")
        if parts[:2] != ["sparring", "runtime"] or len(parts) < 3 or parts[2] == room:
            continue
        mine, theirs = rank.get(room, base), rank.get(parts[2], base)
        if theirs < mine or (theirs == mine and mine != base):
            found.append(f"runtime.{room} -> {module}")
    return found


def import_graph() -> dict[str, set[str]]:
    """module -> the sparring modules it imports (at any depth in the file; ``from a import b``
    counts as importing the module ``a.b`` where that is one)."""
    graph: dict[str, set[str]] = {}
    for path in _files():
        rel = path.relative_to(SRC.parent).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets |= {a.name for a in node.names if a.name.startswith("sparring.")}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if not node.module.startswith("sparring"):
                    continue
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    targets.add(sub if module_file(sub) is not None else node.module)
        graph[name] = {t for t in targets if t != name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other in a loop (strongly connected components of
    more than one module), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


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


def _room(path: Path, under: Path = SRC) -> str:
    rel = path.relative_to(under)
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


def test_runtime_rooms_by_kind_point_down():
    offenders = [
        f"{path.relative_to(SRC)}: {v}"
        for path in sorted((SRC / "runtime").rglob("*.py"))
        for v in runtime_violations(_room(path, SRC / "runtime"), path.read_text())
    ]
    assert not offenders, offenders
    kinds = {p.name for p in (SRC / "runtime").iterdir() if (p / "__init__.py").exists()}
    assert kinds == RUNTIME_KINDS - {"explain"}, "every runtime package is a kind in the table"


def test_no_module_is_in_a_circle_of_imports():
    assert circles(import_graph()) == []


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
    assert layer_violations("frame", "from sparring.champions import registry\n")


def test_a_planted_edge_import_is_caught(tmp_path):
    bad = tmp_path / "bad.py"
    source = "def f():\n    import ray\n    from mlflow.tracking import MlflowClient\n"
    assert {"ray", "mlflow.tracking"} <= imported_modules(source)
    assert edge_imports(bad, source)
    # and through our own modules: the frame layer reaches Ray
    assert edge_imports(SRC / "frame" / "deal_set_store.py")


def test_a_planted_runtime_import_up_or_across_a_kind_is_caught():
    assert runtime_violations("storage", "from sparring.runtime.tracking.runs import x\n")
    assert runtime_violations("programs", "import sparring.runtime.storage.location\n")
    assert runtime_violations("errors", "from sparring.runtime.ray import session\n")
    assert not runtime_violations("tracking", "from sparring.runtime.ray.parallel import x\n")
    assert not runtime_violations("errors", "from sparring.runtime.redact import x\n")


def test_a_planted_circle_is_caught():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_a_planted_checkout_finder_is_caught():
    assert finds_checkout("from pathlib import Path\nROOT = Path(__file__).parents[3]\n")
    assert not finds_checkout("from sparring.runtime.checkout import ROOT\n")
