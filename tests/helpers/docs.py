"""The documentation as tests read it: README.md and the site's pages under docs/ (mkdocs.yml's
``docs_dir``), so that a test checking a page's commands or transcripts names the page, not a
path spelled out again."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.commands import ROOT

DOCS = ROOT / "docs"


def page(relative: str) -> str:
    """The text of one page of the site, e.g. ``page("guides/cluster.md")``."""
    path = DOCS / relative
    assert path.is_file(), f"docs/{relative} is not a page of the site"
    return path.read_text()


def pages() -> list[Path]:
    """README.md and every Markdown page of the site, in a fixed order."""
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def section(text: str, heading: str) -> str:
    """The text under ``heading`` (a whole line, e.g. ``"## Sweeps"``) up to the next heading of
    the same or a higher level (lines inside fenced code blocks are not headings)."""
    lines = text.splitlines()
    start = lines.index(heading) + 1
    level = len(heading) - len(heading.lstrip("#"))
    inside = False
    for i in range(start, len(lines)):
        if lines[i].startswith("```"):
            inside = not inside
        elif not inside and 0 < len(lines[i]) - len(lines[i].lstrip("#")) <= level:
            return "\n".join(lines[start:i])
    return "\n".join(lines[start:])
