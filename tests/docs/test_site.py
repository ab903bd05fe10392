"""The documentation site builds as a user builds it (``mkdocs build --strict``, a separate
process): no broken link or anchor, no page left out of the navigation. A headless Chromium
then loads the built home page and a guide and finds the navigation and a code block rendered.

The control: the same build of a copy of the site with one broken link fails, naming it."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.helpers.commands import BIN, ROOT

MKDOCS = BIN / "mkdocs"
ENV_QUIET = {"NO_MKDOCS_2_WARNING": "1"}


def build(root: Path, out: Path) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of the site whose mkdocs.yml is in ``root``."""
    import os

    return subprocess.run(
        [str(MKDOCS), "build", "--strict", "--site-dir", str(out)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **ENV_QUIET},
    )


def nav_pages(nav: list) -> list[str]:
    """Every page a ``nav`` names, in order."""
    pages = []
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        pages += nav_pages(value) if isinstance(value, list) else [value]
    return pages


def config() -> dict:
    # mkdocs.yml has no Python tags: a plain YAML read is the file as mkdocs reads it
    return yaml.safe_load((ROOT / "mkdocs.yml").read_text())


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = build(ROOT, out)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def test_the_site_builds_strict_with_every_page_in_the_navigation(site):
    pages = nav_pages(config()["nav"])
    on_disk = sorted(str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md"))
    assert sorted(pages) == on_disk  # (strict mode refuses a page out of the nav, too)
    for page in pages:
        html = site / (
            "index.html" if page == "index.md" else page.removesuffix(".md") + "/index.html"
        )
        assert html.is_file(), page


def test_the_site_has_the_pages_the_issue_names():
    pages = nav_pages(config()["nav"])
    for needed in (
        "getting-started.md",
        "guides/enter-your-bot.md",
        "guides/add-a-game.md",
        "guides/cluster.md",
        "guides/rl-libraries.md",
        "rules/poker.md",
        "rules/mus.md",
        "rules/flagbots.md",
        "rules/eleusis.md",
        "reference/cli.md",
        "reference/config.md",
        "reference/api.md",
        "reference/protocols.md",
        "operations/reliability.md",
        "operations/security.md",
        "ARCHITECTURE.md",
        "development/benchmarks.md",
    ):
        assert needed in pages, needed


def test_the_python_api_is_rendered_from_docstrings(site):
    html = (site / "reference" / "api" / "index.html").read_text()
    # a docstring of sparring.game_api, as mkdocstrings renders it
    assert "sparring.game_api" in html
    assert "IllegalActionError" in html
    assert 'class="doc doc-object' in html


def test_a_broken_link_fails_the_build_naming_it(tmp_path):
    """The control of the strict build."""
    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    shutil.copytree(
        ROOT / "docs", copy / "docs", ignore=shutil.ignore_patterns("*.py", "__pycache__")
    )
    (copy / "src").symlink_to(ROOT / "src")  # mkdocstrings reads the code from src/
    (copy / "benchmarks").symlink_to(ROOT / "benchmarks")  # included by snippets
    page = copy / "docs" / "guides" / "cluster.md"
    page.write_text(page.read_text() + "\nSee [the missing page](no-such-page.md).\n")
    done = build(copy, tmp_path / "out")
    assert done.returncode != 0
    assert re.search(r"guides/cluster\.md.*no-such-page\.md", done.stderr), done.stderr[-2000:]


def _dom(url: str) -> str:
    from sparring.launch.screenshots import _chromium, browser

    exe = browser()
    if exe is None:
        pytest.skip("no headless browser here (CI installs chromium)")
    done = _chromium(exe, url, "--dump-dom", budget_ms=5000)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.parametrize("page", ["index.html", "guides/enter-your-bot/index.html"])
def test_a_browser_renders_the_navigation_and_code_blocks(site, page):
    dom = _dom((site / page).as_uri())
    # Material's navigation drawer, with the site's sections in it
    assert 'class="md-nav' in dom
    for section in ("Getting started", "Guides", "Rules", "Reference", "Operations"):
        assert section in dom, section
    if page != "index.html":  # a guide: its code highlighted into a code block
        assert re.search(r'<div class="[^"]*highlight[^"]*"><pre', dom), dom[:2000]
        assert "<code" in dom


def test_the_readme_is_short_and_its_links_lead_somewhere():
    """README.md stays an index (#51): under 200 lines, its four tasks each a command and a
    link, and every relative link names a file of the repository."""
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) < 200
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if not link.startswith(("http://", "https://"))]
    assert len(local) >= 10, local
    missing = [link for link in local if not (ROOT / link).is_file()]
    assert not missing, missing
    for guide in ("enter-your-bot", "add-a-game", "cluster", "train-and-evolve"):
        assert f"docs/guides/{guide}.md" in local, guide
    assert "make run" in text and "make test" in text
