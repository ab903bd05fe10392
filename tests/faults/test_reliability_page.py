"""docs/operations/reliability.md backs each fault with a named test: every test it names
exists (a renamed or deleted test would leave a row that nothing checks)."""

from __future__ import annotations

import ast
import re

from tests.helpers.commands import ROOT
from tests.helpers.docs import page

# `tests/x.py::test_name` (a parameter list after it is allowed), or `…::test_name` for the file
# named last before it
NAMED = re.compile(r"`(tests/[\w/]+\.py)(?:::(\w+))?|`…::(\w+)")


def _named_tests(text: str) -> list[tuple[str, str | None]]:
    named, last = [], None
    for path, test, same_file in NAMED.findall(text):
        last = path or last
        assert last is not None, f"…::{same_file} names no file before it"
        named.append((last, test or same_file or None))
    return named


def _tests_in(path: str) -> set[str]:
    tree = ast.parse((ROOT / path).read_text())
    return {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}


def test_every_test_the_reliability_page_names_exists():
    named = _named_tests(page("operations/reliability.md"))
    assert len(named) > 40  # (the page names its tests: the pattern finds them)
    missing = [
        f"{path}::{test}" if test else path
        for path, test in named
        if not (ROOT / path).is_file() or (test is not None and test not in _tests_in(path))
    ]
    assert not missing, f"the reliability page names tests that do not exist: {missing}"


def test_a_renamed_test_is_found_missing():
    """The control: a name that is not there is reported."""
    page = (
        "`tests/faults/test_reliability_page.py::test_no_such_test`; "
        "`…::test_a_renamed_test_is_found_missing`"
    )
    [(path, gone), (_, kept)] = _named_tests(page)
    assert gone not in _tests_in(path) and kept in _tests_in(path)
