"""A best-config file proves itself whole: sealed by the search that wrote it, refused in one
line before any work when it is cut short, changed or not text (issue #27, item 4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sparring.config.best_files import check_best_files
from sparring.runtime.errors import UsageError
from sparring.runtime.storage.sealed import seal, unseal
from sparring.tuning.summary import TrialRecord, write_best
from tests.helpers.commands import ROOT, run_pipeline
from tests.helpers.configs import compose_config


@settings(max_examples=200, deadline=None)
@given(st.text(), st.data())
def test_a_sealed_text_reads_back_whole_and_any_cut_of_it_is_refused(text, data):
    sealed = seal(text).encode()
    body = unseal(sealed, "f", "fix it")
    assert body == (text if text.endswith("\n") else text + "\n")
    cut = data.draw(st.integers(0, len(sealed) - 2))  # short of the seal's last newline
    with pytest.raises(
        UsageError, match=r"^f (has no digest line|does not match|is not a text).*; fix it$"
    ):
        unseal(sealed[:cut], "f", "fix it")


def test_a_changed_byte_or_binary_data_is_refused():
    sealed = bytearray(seal("ga:\n  population: 64\n").encode())
    sealed[5] ^= 0x01
    with pytest.raises(UsageError, match="does not match its digest"):
        unseal(bytes(sealed), "f", "r")
    with pytest.raises(UsageError, match="is not a text file"):
        unseal(b"\xff\xfe\x00garbage", "f", "r")


def best_file(directory: Path, name: str) -> Path:
    record = TrialRecord(3, "t3", {"ga.p_mutation": 0.125, "ga.population": 12}, 4.5, "finished")
    fixed = {"ga.generations": 2, "deals.heldout": 60, "deals.train": 30}
    return write_best(directory / "best" / f"{name}.yaml", fixed, record, name, "champion_bb100")


def test_a_whole_best_file_composes_and_a_cut_one_is_refused_before_hydra(tmp_path):
    whole = best_file(tmp_path, "t1")
    searchpath = f"hydra.searchpath=[file://{tmp_path}]"
    check_best_files(ROOT / "conf", ["+best=t1", searchpath])
    composed = compose_config("evolve", "+best=t1", searchpath)
    assert composed.ga.p_mutation == 0.125 and composed.ga.population == 12
    (tmp_path / "best" / "trunc.yaml").write_bytes(whole.read_bytes()[:150])
    with pytest.raises(UsageError, match=r"\+best=trunc: .*trunc\.yaml has no digest line"):
        check_best_files(ROOT / "conf", ["+best=trunc", searchpath])
    check_best_files(ROOT / "conf", ["+best=nothing-here"])  # no file: Hydra's own error
    # every way of naming it: a multirun list, quotes, a package, another config directory
    for overrides in (
        ["+best=t1,trunc", searchpath],
        ["+best='trunc'", searchpath],
        ["+best@_global_=trunc", searchpath],
        ["--config-dir", str(tmp_path), "+best=trunc"],
        [f"--config-dir={tmp_path}", "+best=trunc"],
    ):
        with pytest.raises(UsageError, match=r"\+best=trunc: .*has no digest line"):
            check_best_files(ROOT / "conf", overrides)


def test_the_pipeline_refuses_a_cut_best_file_in_one_line(tmp_path):
    """The issue's case: ``head -c 150`` of a best file, then ``evolve.py +best=trunc``."""
    whole = best_file(tmp_path, "t1")
    (tmp_path / "best" / "trunc.yaml").write_bytes(whole.read_bytes()[:150])
    done = run_pipeline(
        "evolve", "+best=trunc", f"hydra.searchpath=[file://{tmp_path}]", cwd=tmp_path, timeout=120
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.strip().splitlines() == [
        f"error: +best=trunc: {tmp_path / 'best' / 'trunc.yaml'} has no digest line at its end "
        "(cut short?); run the search again (resume=true writes the file anew) or delete the file"
    ]
    assert done.stdout == "" and not (tmp_path / "outputs").exists()  # before Hydra ran


def test_another_searchs_file_or_one_missing_a_key_is_refused_before_hydra(tmp_path):
    """The file proves which search wrote it and which keys it must hold: a copy of t1's file
    named t2, and a file re-sealed after a key was taken out, are refused in one line."""
    whole = best_file(tmp_path, "t1")
    searchpath = f"hydra.searchpath=[file://{tmp_path}]"
    (tmp_path / "best" / "t2.yaml").write_bytes(whole.read_bytes())
    with pytest.raises(UsageError) as copied:
        check_best_files(ROOT / "conf", ["+best=t2", searchpath])
    assert "holds the best config of search 't1', not of 't2'" in str(copied.value)
    assert "use +best=t1" in str(copied.value)
    text = unseal(whole.read_bytes(), "t1", "")
    assert "# keys: deals.heldout,deals.train,ga.generations,ga.p_mutation,ga.population" in text
    cut = "".join(line for line in text.splitlines(True) if "p_mutation: " not in line)
    whole.write_text(seal(cut))  # whole and sealed, but without a key its search set
    with pytest.raises(UsageError, match=r"\+best=t1: .* lacks ga\.p_mutation, which its search"):
        check_best_files(ROOT / "conf", ["+best=t1", searchpath])
