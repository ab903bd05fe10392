"""Every sweep preset composes with its pipeline and names only valid values; so does every
hyperparameter-search preset (``conf/hparams_search/``) with the tune pipeline."""

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from sparring.config import to_typed
from tests.helpers.configs import compose_config

CONF = Path(__file__).resolve().parents[2] / "conf"
PRESETS = {
    "ga_operators": "evolve",
    "flagbots_configs": "flagbots_bench",
    "eleusis_harma": "eleusis_bench",
    "eleusis_priors": "eleusis_bench",
    "equity_trials": "equity",
}


def test_every_preset_is_listed():
    assert {p.stem for p in (CONF / "sweep").glob("*.yaml")} == set(PRESETS)


@pytest.mark.parametrize(("preset", "pipeline"), sorted(PRESETS.items()))
def test_presets_compose_and_their_points_parse(preset, pipeline):
    from hydra.core.override_parser.overrides_parser import OverridesParser

    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose(config_name=pipeline, overrides=[f"sweep={preset}"], return_hydra_config=True)
    params = cfg.hydra.sweeper.params
    assert params, preset
    parser = OverridesParser.create()
    for key, values in params.items():
        override = parser.parse_override(f"{key}={values}")
        points = list(override.sweep_iterator()) if override.is_sweep_override() else [values]
        assert len(points) >= 2, (preset, key)
        for point in points:  # every point is a valid config of the pipeline's schema
            typed = compose_config(pipeline, f"{key}={_text(point)}")
            assert to_typed(typed) is not None, (preset, key, point)


# the file each job of a preset writes: distinct per point (one output overwritten by the
# next job loses every point but the last)
SINGLE_FILE_OUTPUTS = {"equity_trials": "output"}


@pytest.mark.parametrize(("preset", "pipeline"), sorted(PRESETS.items()))
def test_the_jobs_of_a_preset_write_distinct_outputs(preset, pipeline):
    from hydra.core.override_parser.overrides_parser import OverridesParser

    key = SINGLE_FILE_OUTPUTS.get(preset)
    if key is None:  # its outputs are keyed by the config hash already, or MLflow only
        return
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose(config_name=pipeline, overrides=[f"sweep={preset}"], return_hydra_config=True)
    (param, values), *_ = cfg.hydra.sweeper.params.items()
    points = list(OverridesParser.create().parse_override(f"{param}={values}").sweep_iterator())
    outputs = set()
    for point in points:
        with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
            job = compose(config_name=pipeline, overrides=[f"sweep={preset}", f"{param}={point}"])
        outputs.add(str(job[key]))
    assert len(outputs) == len(points), outputs


def _text(point) -> str:
    """A sweep point as override text again (quoted strings unwrap to their text)."""
    if isinstance(point, list):
        return "[" + ",".join(_text(p) for p in point) + "]"
    text = getattr(point, "text", point)
    return f"'{text}'" if isinstance(text, str) and ("=" in text or ":" in text) else str(text)


HPARAM_PRESETS = sorted(p.stem for p in (CONF / "hparams_search").glob("*.yaml"))


def test_the_search_presets_moved_to_hparams_search():
    assert HPARAM_PRESETS and not (CONF / "search").exists()


@pytest.mark.parametrize("name", HPARAM_PRESETS)
def test_every_hparam_search_preset_passes_its_own_checks(name):
    """Every shipped preset composes (``hparams_search=<name>``) and each end of its space is a
    valid target config."""
    from sparring.tuning import target

    job = to_typed(compose_config("tune", f"hparams_search={name}"))
    search = job.hparams_search
    assert search.name == name
    config = target.check(str(CONF), search)
    assert config.objective == search.objective
    if search.algorithm == "grid" or any(s.grid for s in search.space.values()):
        assert search.grid_size() >= 1
