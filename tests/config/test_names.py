"""One rule for every name that becomes a path, an MLflow filter value or a tag: a retrain id,
a search id, an experiment, a model name. None climbs out of its directory or breaks a filter."""

from __future__ import annotations

import pytest

from sparring.runtime.checks import NAME_ALLOWED, name
from sparring.runtime.errors import ConfigError
from tests.helpers.commands import run_cli
from tests.helpers.configs import config_error


@pytest.mark.parametrize(
    ("pipeline", "override"),
    [
        ("retrain", "retrain.id=../../../../../../../outside-the-root"),
        ("retrain", "retrain.id=a/b"),
        ("retrain", "registry.model_name=../m"),
        ("evolve", "registry.model_name='a b'"),
        ("tune", "search_id=../../etc"),
        ("evolve", "tracking.experiment=a/b"),
        ("equity", "tracking.experiment=..x"),
    ],
)
def test_a_bad_name_is_refused_in_one_line(pipeline, override):
    key = override.split("=", 1)[0]
    line = config_error(pipeline, override)
    assert line.startswith(f"{key}=") and NAME_ALLOWED in line


@pytest.mark.parametrize("good", ["2026-12-01", "raysubmit_AbC123", "make-run-20261201-083000"])
def test_ids_people_use_pass(good):
    assert name("retrain.id", good) == good


@pytest.mark.parametrize("bad", ["a'b", 'a"b', "a b", ".hidden", "a..b", "", "x" * 129])
def test_what_would_break_a_filter_or_a_path_fails(bad):
    with pytest.raises(ConfigError):
        name("retrain.id", bad)


def test_retrain_history_refuses_a_quote_in_one_line():
    """It used to end in a traceback from MLflow's filter parser."""
    done = run_cli("retrain", "history", "--model", "a'b", timeout=120)
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert "--model" in line and "a'b" in line and "Traceback" not in done.stderr


@pytest.mark.parametrize("command", [["mus", "profile", "--player"], ["play", "mus", "--player"]])
def test_a_mus_player_name_follows_the_one_rule(command, tmp_path):
    """#27 item 13: player names too (a name that becomes a filter, a path or a tag)."""
    done = run_cli(*command, "../../x'y", cwd=tmp_path, timeout=120)
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.strip().splitlines()[-1:]
    assert "--player" in line and "is not allowed: expected a name" in line
    assert "Traceback" not in done.stderr
