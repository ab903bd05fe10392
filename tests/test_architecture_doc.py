"""docs/ARCHITECTURE.md is the map of the code as built, so it is checked against the code:

- every module, attribute and file it names in backticks exists (``runtime.ray.session``,
  ``frame.session.pipeline_session``, ``src/sparring/games.py``, ``tests/...py``; a dotted name
  is read under ``src/sparring``, with a trailing attribute, and a class's member after it);
- its table of layers is ``LAYERS`` of tests/test_layering.py, row by row, and its runtime table
  is ``RUNTIME_LAYERS`` and names every module of ``runtime``;
- its new-game checklist is what tests/arena/test_game_plugin.py does with its Nim: each name a
  step marks as required appears in that test, and what the test's plugin defines and calls
  (its game's and its states' methods, its entry point, its conformance call, its contests) is
  required by the checklist. Either side changing alone fails here.

The code is read, never imported (no module of sparring: no game, no kernel, no Ray). Each
check has a planted violation it must catch.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest
import yaml

from tests.test_layering import LAYERS, RUNTIME_LAYERS

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "sparring"
DOC = ROOT / "docs" / "ARCHITECTURE.md"
PLUGIN_TEST = ROOT / "tests" / "arena" / "test_game_plugin.py"

SPAN = re.compile(r"`([^`\n]+)`")
DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")
REFERENCE = re.compile(r"\bsparring(?:\.\w+)+:\w+")  # "module:attribute", as games.py writes
FILE_SUFFIXES = (".py", ".md", ".yaml", ".toml")
# names of things a run writes, not files of the repository (``games.txt``, ``hands.log``)
ARTIFACTS = {"txt", "log", "jsonl", "json", "npy", "npz", "sha256", "csv", "png", "db"}


# --- (1) every module and file named exists -----------------------------------------------


@cache
def rooms() -> frozenset[str]:
    """The top-level packages and modules of ``sparring``: what a dotted name starts with."""
    return frozenset(
        p.stem if p.suffix == ".py" else p.name
        for p in SRC.iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()
    )


def module_file(parts: list[str]) -> Path | None:
    base = SRC.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _defined(body: list[ast.stmt]) -> dict[str, ast.AST]:
    """Names bound at the top of a module's (or a class's) body, with what binds them."""
    names: dict[str, ast.AST] = {}
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names[node.name] = node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        names[name.id] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                names[alias.asname or alias.name.split(".")[0]] = node
        elif isinstance(node, ast.If | ast.Try):  # (names bound under a guard count too)
            names.update(_defined(node.body))
    return names


@cache
def _module_names(path: Path) -> dict[str, ast.AST]:
    return _defined(ast.parse(path.read_text()).body)


def dotted_problem(name: str) -> str | None:
    """Why a dotted name under ``sparring`` is not true (None when it is): its longest prefix
    that is a module, then one attribute of that module, then a member of it if it is a class
    defined there."""
    parts = name.removeprefix("sparring.").split(".")
    for cut in range(len(parts), 0, -1):
        path = module_file(parts[:cut])
        if path is not None:
            break
    else:
        return f"`{name}`: no module {parts[0]} under src/sparring"
    rest = parts[cut:]
    if not rest:
        return None
    where = ".".join(parts[:cut])
    bound = _module_names(path)
    if rest[0] not in bound:
        return f"`{name}`: {where} ({path.relative_to(ROOT)}) defines no {rest[0]}"
    cls = bound[rest[0]]
    if len(rest) >= 2 and isinstance(cls, ast.ClassDef) and rest[1] not in _defined(cls.body):
        return f"`{name}`: {where}.{rest[0]} has no member {rest[1]}"
    return None


@cache
def _config_keys() -> frozenset[str]:
    """Every dotted key the pipelines' configs set (``ga.p_mutation``)."""
    keys: set[str] = set()

    def walk(node: object, prefix: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                keys.add(f"{prefix}{key}")
                walk(value, f"{prefix}{key}.")

    for conf in (ROOT / "conf").glob("*.yaml"):
        walk(yaml.safe_load(conf.read_text()), "")
    return frozenset(keys)


def file_problem(span: str) -> str | None:
    """Why a path named in the doc is not a file or folder of the repository (or of
    ``src/sparring``, where the doc's rooms are written ``cli/``, ``cli/results.py``)."""
    for base in (ROOT, SRC):
        if (base / span).exists():
            return None
    return f"`{span}`: no such file or folder in the repository or src/sparring"


def problems(text: str) -> list[str]:
    """Everything named in backticks (and every "sparring.x:attr" reference) in ``text`` that
    does not exist. A placeholder (``<name>``), a glob, a URL scheme or a run's artifact name is
    not a name of the code and is left alone."""
    found = []
    for raw in SPAN.findall(text):
        span = re.sub(r"\(.*\)$", "", raw.strip())  # a call: `init_ray(cfg)` is `init_ray`
        if any(mark in span for mark in "<*{ ") or "://" in span:
            continue
        if "/" in span or span.endswith(FILE_SUFFIXES):
            found.append(file_problem(span))
        elif DOTTED.match(span) and span.rsplit(".", 1)[1] not in ARTIFACTS:
            parts = span.removeprefix("sparring.").split(".")
            # a room's name first, or the shape of a module path (`services.session.x`)
            looks = parts[0] in rooms() or (len(parts) >= 3 and parts[0].islower()
                                            and parts[1].islower())  # fmt: skip
            if looks and span not in _config_keys():
                found.append(dotted_problem(span))
    for ref in REFERENCE.findall(text):
        module, _, attribute = ref.partition(":")
        found.append(dotted_problem(f"{module}.{attribute}"))
    return [p for p in found if p is not None]


def test_every_module_and_file_the_doc_names_exists():
    assert problems(DOC.read_text()) == []


def test_the_check_reads_names_of_every_kind():
    """The doc names enough of each kind for the check above to mean something."""
    spans = SPAN.findall(DOC.read_text())
    assert sum(1 for s in spans if s.startswith("runtime.")) > 30
    assert sum(1 for s in spans if s.startswith(("src/", "tests/"))) > 20
    assert "frame.session.pipeline_session" in spans


def test_a_planted_name_that_does_not_exist_is_flagged():
    planted = (
        "The frame is `frame.session.pipeline_session`, over `runtime.ray.session` and "
        "`runtime.tracking.runs.tracked_run` (`tests/test_layering.py`).\n"
        "Stale: `runtime.ray_session`, `services.session.pipeline_session`, "
        "`frame.session.open_session(job)`, `game_api.Traits.no_such_trait`, "
        "`src/sparring/arena/sandbox.py`, `tests/ops/test_nowhere.py`, and "
        '`launch(__file__, "x", "sparring.pipelines.nowhere:run")`.\n'
        "Left alone: `games.txt`, `s3://bucket/x`, `pipelines/<name>.py`, `ga.p_mutation`.\n"
    )
    found = problems(planted)
    assert len(found) == 7, found
    for stale in ("runtime.ray_session", "services.session", "open_session", "no_such_trait",
                  "sandbox.py", "test_nowhere.py", "pipelines.nowhere"):  # fmt: skip
        assert any(stale in p for p in found), (stale, found)


# --- the layer tables are the test's --------------------------------------------------------


def _section(text: str, heading: str) -> str:
    """The body of the section whose heading starts with ``heading`` (to the next heading of
    the same or a higher level)."""
    level = heading.split(" ")[0]
    match = re.search(rf"^{re.escape(heading)}.*?$(.*?)(?=^#{{1,{len(level)}}} |\Z)", text,
                      flags=re.M | re.S)  # fmt: skip
    assert match, f"no section {heading!r}"
    return match.group(1)


def table_rooms(section: str) -> list[tuple[str, ...]]:
    """The second column of a Markdown table's rows: the backticked rooms, each row a tuple."""
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and line.startswith("|") and not set(cells[0]) <= set("-: "):
            rows.append(tuple(r.rstrip("/") for r in SPAN.findall(cells[1])))
    return rows[1:]  # (the header)


def test_the_layers_table_is_the_tests_layers():
    assert table_rooms(_section(DOC.read_text(), "## Layers")) == list(LAYERS)


def test_a_planted_layers_table_out_of_order_is_caught():
    """The doc's own table with two rows swapped, and with a room left out."""
    section = _section(DOC.read_text(), "## Layers")
    lines = section.splitlines()
    first, second = (i for i, x in enumerate(lines) if x.startswith(("| 1 |", "| 2 |")))
    lines[first], lines[second] = lines[second], lines[first]
    assert table_rooms("\n".join(lines)) != list(LAYERS)
    assert table_rooms(section.replace("`champions/`", "champions")) != list(LAYERS)


def runtime_kinds(section: str) -> list[str]:
    """The first column of the runtime table: its kinds, top to bottom."""
    kinds = []
    for line in section.splitlines()[1:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and not set(cells[0]) <= set("-: "):
            kinds.append(cells[0])
    return kinds[1:]


def unnamed_runtime_modules(section: str) -> list[str]:
    """The modules of ``runtime`` that ``section`` does not name (by their dotted path)."""
    named = set(SPAN.findall(section))
    missing = []
    for path in sorted((SRC / "runtime").rglob("*.py")):
        if path.name == "__init__.py":
            continue
        module = ".".join(path.relative_to(SRC).with_suffix("").parts)
        if not any(s == module or s.startswith(f"{module}.") for s in named):
            missing.append(module)
    return missing


def test_the_runtime_table_is_the_tests_runtime_layers_and_names_every_module():
    section = _section(DOC.read_text(), "## The runtime, by kind")
    flat = [kind for row in RUNTIME_LAYERS for kind in row]
    assert runtime_kinds(section) == [*flat, "plain modules"]
    assert unnamed_runtime_modules(section) == [], "runtime modules the runtime table omits"


def test_a_planted_runtime_table_that_omits_a_module_or_reorders_kinds_is_caught():
    section = _section(DOC.read_text(), "## The runtime, by kind")
    assert unnamed_runtime_modules(section.replace("`runtime.net`", "net")) == ["runtime.net"]
    swapped = section.replace("| tracking |", "| TEMP |").replace("| ray |", "| tracking |")
    flat = [kind for row in RUNTIME_LAYERS for kind in row]
    assert runtime_kinds(swapped.replace("| TEMP |", "| ray |")) != [*flat, "plain modules"]


# --- (2) the new-game checklist is what the plugin test does --------------------------------


def required(checklist: str) -> dict[str, list[str]]:
    """What each ``- required ...:`` item of the checklist marks as required: its label (the
    words before the colon) -> the names it gives in backticks."""
    found: dict[str, list[str]] = {}
    item = re.compile(r"^\s*- (required[^:\n]*):(.*?)(?=^\s*(?:- |\d+\. )|\Z)", re.M | re.S)
    for label, body in item.findall(checklist):
        found.setdefault(label.strip(), []).extend(SPAN.findall(body))
    return found


def _in(name: str, source: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", source) is not None


def _plugin_classes(source: str) -> tuple[set[str], set[str]]:
    """The members of the test's plugin game class and of its state class (the class with
    ``new_state``, the one with ``apply_action``), read from its ``NIM`` source."""
    nim = next(
        node.value.value
        for node in ast.parse(source).body
        if isinstance(node, ast.Assign)
        and [getattr(t, "id", None) for t in node.targets] == ["NIM"]
        and isinstance(node.value, ast.Constant)
    )
    classes = {
        node.name: {n for n in _defined(node.body) if not n.startswith("_")}
        for node in ast.parse(nim).body
        if isinstance(node, ast.ClassDef)
    }
    game = next(members for members in classes.values() if "new_state" in members)
    state = next(members for members in classes.values() if "apply_action" in members)
    return game, state


def _protocol(name: str) -> set[str]:
    """The members of a protocol class of ``game_api`` (``Game``, ``GameState``)."""
    cls = _module_names(SRC / "game_api.py")[name]
    assert isinstance(cls, ast.ClassDef)
    return {n for n in _defined(cls.body) if not n.startswith("_")}


def drift(checklist: str, source: str) -> list[str]:
    """Where the plugin checklist and the plugin test differ: a required name the test never
    uses, or something the test's plugin defines or does that the checklist does not require."""
    marked = required(checklist)
    everything = {name for names in marked.values() for name in names}
    found = [f"required `{n}` is not in {PLUGIN_TEST.name}" for n in sorted(everything)
             if not _in(n, source)]  # fmt: skip

    game, state = _plugin_classes(source)
    game -= _protocol("Traits")  # what a game may declare (optional: its own step of the list)
    for label, members, protocol in (
        ("required of the game", game, "Game"),
        ("required of each state", state, "GameState"),
    ):
        listed = set(marked.get(label, ()))
        if listed != members:
            found.append(f"{label}: the checklist says {sorted(listed)}, the test's plugin "
                         f"has {sorted(members)}")  # fmt: skip
        if listed != _protocol(protocol):
            found.append(f"{label}: game_api.{protocol} has {sorted(_protocol(protocol))}")

    group = _module_names(SRC / "game_api.py")["PLUGIN_GROUP"]
    assert isinstance(group, ast.Assign) and isinstance(group.value, ast.Constant)
    metadata = set(marked.get("required in the metadata", ()))
    for entry_group, value in re.findall(r"\[([\w.]+)\]\\n\w+ = ([\w.:]+)", source):
        if entry_group != group.value.value:
            found.append(f"the test's entry point group {entry_group} is not PLUGIN_GROUP")
        found += [f"the checklist does not require `{x}`" for x in (entry_group, value)
                  if x not in metadata]  # fmt: skip
    if not metadata:
        found.append("the checklist requires no entry point")

    done = set(re.findall(r"(?<![\w.])(?:conformance|game_api)\.(\w+)\(", source))
    done |= set(re.findall(r"\b(?:game|kind)=\w+", source))
    found += [f"the test does `{x}`, the checklist does not require it" for x in sorted(done)
              if x not in everything]  # fmt: skip
    return found


def _checklist() -> str:
    return _section(DOC.read_text(), "### A game as a plugin")


def test_the_plugin_checklist_is_what_the_plugin_test_does():
    checklist = _checklist()
    assert set(required(checklist)) >= {
        "required of each state", "required of the game", "required in the metadata"
    }  # fmt: skip
    assert drift(checklist, PLUGIN_TEST.read_text()) == []


def test_the_plugin_checklist_names_the_test_that_proves_it():
    assert "tests/arena/test_game_plugin.py" in SPAN.findall(_checklist())


@pytest.mark.parametrize(
    ("change", "caught"),
    [
        # the checklist requires a method the test's Nim does not have
        (lambda c, s: (c.replace("`leaks`", "`leaks`, `describe`"), s), "describe"),
        # the checklist stops requiring a method the test's Nim has
        (lambda c, s: (c.replace(", `clone`", ""), s), "clone"),
        # the checklist names another entry point group
        (
            lambda c, s: (c.replace("group `sparring.games`", "group `sparring.plugins`"), s),
            "sparring.plugins",
        ),
        # the test's plugin grows a method the checklist does not require
        (
            lambda c, s: (
                c,
                s.replace(
                    "    def leaks(",
                    "    def variant(self):\n        return None\n\n    def leaks(",
                ),
            ),
            "variant",
        ),
        # the test plays a contest of a kind the checklist does not name
        (lambda c, s: (c, s.replace('"kind=sprt"', '"kind=league"')), "kind=league"),
        # the test registers its game under another group
        (lambda c, s: (c, s.replace("[sparring.games]", "[sparring.plugins]")), "PLUGIN_GROUP"),
    ],
)
def test_a_planted_drift_between_checklist_and_test_is_caught(change, caught):
    checklist, source = change(_checklist(), PLUGIN_TEST.read_text())
    assert (checklist, source) != (_checklist(), PLUGIN_TEST.read_text()), "nothing planted"
    found = drift(checklist, source)
    assert any(caught in line for line in found), found
