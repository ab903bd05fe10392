"""Composing pipeline configs in tests exactly as ``pipelines/<name>.py`` does."""

from __future__ import annotations

from pathlib import Path

from hydra import compose, initialize_config_dir

CONF_DIR = Path(__file__).resolve().parents[2] / "conf"

# The tests' small evolve: six seats, eight players, a few deals (a generation: about a second).
SMALL_EVOLVE = (
    "table_size=6",
    "ga.population=8",
    "deals.train=12",
    "deals.heldout=40",
    "deals.equity_trials=60",
    "deals.shard_size=20",
    "seed=3",
)
# ... run as a command and acted on mid-run (a signal, a lost server): add ga.generations=.
TINY_EVOLVE = (*SMALL_EVOLVE, "registry.register=false")  # on the session's Ray head


def compose_config(name: str, *overrides: str):
    """The Hydra config ``pipelines/<name>.py`` would compose with ``overrides`` (untyped)."""
    import sparring.config

    sparring.config.register()
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        return compose(config_name=name, overrides=list(overrides))


def config_error(name: str, *overrides: str) -> str:
    """The one-line error a bad config gets (composition or schema); fails if it is accepted
    or if the failure is not an expected one."""
    from sparring.config import to_typed
    from sparring.runtime.explain import one_line

    try:
        to_typed(compose_config(name, *overrides))
    except Exception as exc:
        line = one_line(exc)
        assert line is not None, f"unexpected failure {exc!r}"
        assert "\n" not in line
        return line
    raise AssertionError(f"{name} {' '.join(overrides)} was accepted")
