"""The pipeline traits (``sparring.pipelines.PIPELINES``) say what each body offers, once: the
table names every body and script, and a trait is declared exactly when the body has the
function it names. Read from the sources (no body is imported), with a planted mismatch that
the check must catch."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sparring.config.renamed import RENAMED_PIPELINES
from sparring.pipelines import PIPELINES, PipelineTraits

ROOT = Path(__file__).resolve().parents[1]
BODIES = ROOT / "src" / "sparring" / "pipelines"
FUNCTION_TRAITS = ("exit_status", "steps", "prepare")  # a flag: the body has that function


def top_level_names(source: str) -> set[str]:
    """The functions a module defines or imports at its top level."""
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.ImportFrom):
            names |= {alias.asname or alias.name for alias in node.names}
    return names


def mismatches(traits: PipelineTraits, source: str) -> list[str]:
    """The function traits of ``traits`` that disagree with the body's ``source``."""
    names = top_level_names(source)
    found = []
    for trait in FUNCTION_TRAITS:
        declared, present = getattr(traits, trait), trait in names
        if declared != present:
            found.append(f"{traits.name}: {trait} declared {declared}, in the body {present}")
    return found


def test_the_table_names_every_body_and_script():
    bodies = {p.stem for p in BODIES.glob("*.py") if p.name != "__init__.py"}
    scripts = {p.stem for p in (ROOT / "pipelines").glob("*.py")} - set(RENAMED_PIPELINES)
    assert set(PIPELINES) == bodies == scripts
    assert all(name == traits.name for name, traits in PIPELINES.items())


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_a_trait_is_declared_exactly_when_the_body_has_it(name):
    traits = PIPELINES[name]
    assert traits.module == f"sparring.pipelines.{name}"
    assert not mismatches(traits, (BODIES / f"{name}.py").read_text())


@pytest.mark.parametrize("name", sorted(n for n, t in PIPELINES.items() if t.preflight))
def test_a_preflight_names_a_function_that_exists(name):
    module, _, function = str(PIPELINES[name].preflight).partition(":")
    path = ROOT / "src" / Path(*module.split(".")).with_suffix(".py")
    assert function in top_level_names(path.read_text()), PIPELINES[name].preflight


def test_a_planted_mismatch_is_caught():
    body = "def run(job):\n    pass\n\n\ndef steps(job):\n    return 3\n"
    assert mismatches(PipelineTraits("planted"), body)  # steps, undeclared
    assert mismatches(PipelineTraits("planted", steps=True, prepare=True), body)  # no prepare
    assert not mismatches(PipelineTraits("planted", steps=True), body)
    imported = "from sparring.champions.decisions import exit_status\n"
    assert not mismatches(PipelineTraits("planted", exit_status=True), imported)


def test_a_resumable_trait_is_read_as_the_launcher_reads_it():
    """evolve resumes when started with ``resume=true``; retrain always; equity never."""

    class Config:
        resume = True

    resumes = PIPELINES["evolve"].resumable
    assert callable(resumes)
    assert resumes(Config()) is True
    Config.resume = False
    assert resumes(Config()) is False
    assert PIPELINES["retrain"].resumable is True
    assert PIPELINES["equity"].resumable is False
