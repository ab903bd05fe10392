"""The generated pages and pictures of the site (``docs/generate.py``) are what the code makes
today: regenerated in a separate process and compared, so a changed ``--help``, schema or rule
cannot leave a stale page behind. The control: a damaged copy is found stale, and named."""

from __future__ import annotations

import shutil
import subprocess

from tests.helpers.commands import BIN, ROOT

GENERATE = [str(BIN / "python"), str(ROOT / "docs" / "generate.py")]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*GENERATE, *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_every_generated_page_and_picture_is_current():
    done = run("--check")
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_stale_page_is_named_and_fails_the_check(tmp_path):
    """The control: the command-line page, one line changed, in a copy of docs/."""
    (tmp_path / "reference").mkdir()
    page = tmp_path / "reference" / "cli.md"
    shutil.copy(ROOT / "docs" / "reference" / "cli.md", page)
    assert run("--check", "--only", "reference/cli.md", "--docs-dir", str(tmp_path)).returncode == 0
    page.write_text(page.read_text().replace("usage: sparring", "usage: sparing", 1))
    done = run("--check", "--only", "reference/cli.md", "--docs-dir", str(tmp_path))
    assert done.returncode == 1
    assert "reference/cli.md" in done.stderr


def test_the_config_reference_states_what_the_schemas_allow():
    """A few keys against the schema's own checks: what the page says is what is enforced."""
    text = (ROOT / "docs" / "reference" / "config.md").read_text()
    assert "| `ga.population` | `int` |" in text
    assert "| `trials` | `int` | `20000` | integer in 1..100000000 |" in text
    assert "| `direction` | `enum` | `minimize` | one of maximize, minimize |" in text
