"""The typed schemas: every shipped config composes, bad values fail with the full key, and the
typed object logs exactly the params the YAML says (MLflow param names and values unchanged)."""

from __future__ import annotations

import dataclasses
from enum import Enum
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from omegaconf import OmegaConf

from sparring.config import SCHEMAS, EvolveConfig, RetrainConfig, TuneConfig, checks, to_typed
from sparring.ga.operators import CrossoverPolicy
from sparring.runtime.config import flatten
from sparring.runtime.errors import ConfigError
from tests.helpers.configs import CONF_DIR, compose_config, config_error

PIPELINES = sorted(p.stem for p in CONF_DIR.glob("*.yaml"))


def test_every_primary_config_has_a_schema():
    assert set(PIPELINES) == set(SCHEMAS)


@pytest.mark.parametrize("name", PIPELINES)
def test_every_config_composes_to_its_typed_schema(name):
    cfg = compose_config(name)
    typed = to_typed(cfg, SCHEMAS[name])
    assert type(typed) is SCHEMAS[name]
    # The typed object carries the same params as the composed YAML: names and values.
    yaml_params = flatten({k: v for k, v in OmegaConf.to_container(cfg).items()})
    assert flatten(typed) == yaml_params


@pytest.mark.parametrize("name", PIPELINES)
def test_unknown_keys_are_refused_with_the_allowed_ones(name):
    line = config_error(name, "no_such_key=1")
    assert line.startswith("no_such_key is not a known key: allowed keys are ")
    assert "tracking" in line
    appended = config_error(name, "+no_such_key=1")
    assert appended.startswith("no_such_key=1 is not allowed: expected a known key")


def test_retrain_takes_every_evolve_setting_and_its_own():
    typed = to_typed(compose_config("retrain", "ga.population=12", "retrain.id=x"))
    assert isinstance(typed, RetrainConfig) and isinstance(typed, EvolveConfig)
    assert typed.ga.population == 12 and typed.retrain.id == "x"
    assert not typed.registry.register  # retrain decides, the evolution does not register


def test_choices_are_str_enums_that_read_as_their_values():
    typed = to_typed(compose_config("evolve", "ga.crossover_policy=random"))
    assert typed.ga.crossover_policy is CrossoverPolicy.random
    assert f"{typed.ga.crossover_policy}" == "random" == typed.ga.crossover_policy
    assert flatten(typed)["ga.crossover_policy"] == "random"


@pytest.mark.parametrize(
    ("value", "expected"), [("true", True), ("false", False), ("no", False), ("yes", True)]
)
def test_booleans_are_booleans(value, expected):
    assert to_typed(compose_config("evolve", f"resume={value}")).resume is expected


def test_a_nested_schema_error_names_the_full_key():
    assert config_error("evolve", "ga.population=3") == (
        "ga.population=3 is not allowed: expected an integer in 4..100000"
    )
    assert config_error("retrain", "retrain.seed_fraction=1.5").startswith(
        "retrain.seed_fraction=1.5 is not allowed"
    )


def test_paths_that_cannot_be_used_are_refused(tmp_path):
    a_file = tmp_path / "f"
    a_file.write_text("x")
    assert config_error("evolve", f"checkpoint_root={a_file}").endswith("a directory, not a file")
    assert config_error("handgen", f"preflop.table={tmp_path}").endswith("a file, not a directory")


def _schemas(root: type) -> list[type]:
    found = [root]
    for field in dataclasses.fields(root):
        if isinstance(field.type, str) and field.default_factory is not dataclasses.MISSING:
            value = field.default_factory()
            if dataclasses.is_dataclass(value):
                found += _schemas(type(value))
    return found


@pytest.mark.parametrize("name", PIPELINES)
def test_every_schema_default_is_valid_and_choices_are_enums(name):
    for schema in _schemas(SCHEMAS[name]):
        if schema is TuneConfig:  # a search needs its preset's space: the default has none
            with pytest.raises(ConfigError, match=r"^hparams_search.space=\{\} is not allowed"):
                schema()
            continue
        schema()  # defaults pass their own checks
        for field in dataclasses.fields(schema):
            default = getattr(schema(), field.name)
            if isinstance(default, Enum):
                assert isinstance(default, str), (schema, field.name)


@given(st.integers(min_value=-(10**6), max_value=10**6))
def test_integer_check_accepts_exactly_its_range(value):
    try:
        checks.integer("n", value, 1, 9)
    except ConfigError as exc:
        assert not 1 <= value <= 9
        assert str(exc) == f"n={value} is not allowed: expected an integer in 1..9"
    else:
        assert 1 <= value <= 9


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_probability_check_accepts_exactly_finite_values_in_the_unit_interval(value):
    try:
        checks.probability("p", value)
    except ConfigError:
        assert not 0 <= value <= 1  # also true for nan
    else:
        assert 0 <= value <= 1


def test_config_error_under_prefixes_and_reads_naturally():
    error = ConfigError("population", 0, "an integer >= 4").under("ga")
    assert str(error) == "ga.population=0 is not allowed: expected an integer >= 4"
    assert str(ConfigError("x", "a b", "c")) == "x='a b' is not allowed: expected c"
    assert str(ConfigError.text("free text").under("ga")) == "free text"


def test_flatten_of_a_typed_config_keeps_lists_as_json():
    typed = to_typed(compose_config("equity", "opponents=[1,3]"))
    assert flatten(typed)["opponents"] == "[1, 3]"
    assert Path(typed.output).name == "preflop_equity.parquet"


def test_override_syntax_errors_are_one_line():
    assert config_error("equity", "opponents=[1").startswith("cannot read the override")
    assert config_error("equity", "classes=[AA,AKs,AA]") == (
        "classes=['AA', 'AKs', 'AA'] is not allowed: expected each class named once"
    )
    assert to_typed(compose_config("equity", "classes=[AA,AKs]")).class_names == ("AA", "AKs")


@pytest.mark.parametrize(
    "override, quoted",
    [  # the arena's --help examples as they were printed, and a webhook URL with a query
        ("field=[flagbots@depth=2,first]", """'field=["flagbots@depth=2",first]'"""),
        ("agent=flagbots@depth=3", """'agent="flagbots@depth=3"'"""),
        ("field=['flagbots@depth=1',x=1]", """'field=['\\''flagbots@depth=1'\\'',"x=1"]'"""),
    ],
)
def test_an_override_that_needs_quoting_is_named_with_its_quoted_form(override, quoted):
    """The line names the override and gives the form that works (checked: it composes)."""
    said = config_error("arena", override)
    assert said.startswith(f"cannot read the override {override}: ") and said.endswith(quoted)


def test_the_quoted_form_an_error_gives_composes():
    import shlex

    said = config_error("arena", "field=[flagbots@depth=2,first]")
    [fixed] = shlex.split(said.rsplit("quote its values: ", 1)[1])
    job = to_typed(compose_config("arena", fixed))
    assert job.field == ["flagbots@depth=2", "first"]


def test_the_objective_is_read_from_the_run_metrics(capsys):
    from sparring.config.objective import objective_value

    typed = to_typed(compose_config("evolve"))
    assert typed.objective == "champion_bb100_vs_mixed" and typed.direction == "maximize"
    assert objective_value(typed, {"metrics": {"champion_bb100_vs_mixed": 12.5}}) == 12.5
    # outside a sweep a missing metric is a warning naming the close ones, not a failure
    assert objective_value(typed, {"metrics": {"champion_bb100_vs_maniac": 3.0}}) is None
    assert "champion_bb100_vs_maniac" in capsys.readouterr().err
    none = to_typed(compose_config("flagbots_bench"))
    assert none.objective is None and objective_value(none, {"metrics": {}}) is None
    assert to_typed(compose_config("retrain")).objective == "edge_bb100"
    assert config_error("evolve", "direction=up").startswith("direction=up is not allowed")


def test_the_evolve_defaults_are_the_ones_the_quality_study_chose():
    """benchmarks/evolve_quality.py and evolve_defaults.py (LOG.md): trainers from the
    baselines, 64 x 200, a held-out set large enough for tight intervals; no hall of fame (the
    league did not show that it helps)."""
    typed = to_typed(compose_config("evolve"))
    assert (typed.ga.population, typed.ga.generations) == (64, 200)
    assert typed.trainers.start == "baselines"
    assert (typed.trainers.hall_of_fame, typed.trainers.hall_every) == (0, 10)
    assert (typed.deals.train, typed.deals.heldout) == (200, 2000)
    params = typed.params
    assert params.trainer_start == "baselines" and params.hall_of_fame == 0
    # the schema's own defaults agree with the YAML (a config built in Python gets the same)
    from sparring.config.evolve import EvolveConfig

    bare = EvolveConfig()
    assert (bare.ga.population, bare.ga.generations, bare.deals.heldout) == (64, 200, 2000)
    assert (bare.trainers.start, bare.trainers.hall_of_fame) == ("baselines", 0)


def test_settings_that_leave_nothing_to_do_are_refused():
    """Each would start Ray and MLflow for a run with no result: a FlagBots bench with neither
    searchers nor match players, an SPRT that reads nothing before the held-out deals run out.
    The controls, one step inside each bound, are accepted (a match alone is a bench)."""
    from sparring.config.flagbots_bench import FlagBotsBenchConfig, SearchMatchConfig

    no_match = SearchMatchConfig(players={})  # (a YAML's `players: {}`: an override merges)
    with pytest.raises(ConfigError) as refused:
        FlagBotsBenchConfig(searchers=[], match=no_match)
    assert str(refused.value) == (
        "searchers=[] is not allowed: expected some of minimax, alphabeta, id, id_tt, "
        "id_tt_kh, full, reduced, or match players (with neither, nothing is measured)"
    )
    to_typed(compose_config("flagbots_bench", "searchers=[]"))  # the round robin alone
    FlagBotsBenchConfig(match=no_match)  # the searchers alone
    sprt = ["retrain.test=sprt", "retrain.sprt.min_deals=30"]
    assert config_error("retrain", *sprt, "deals.heldout=29") == (
        "retrain.sprt.min_deals=30 is not allowed: expected at most deals.heldout=29 "
        "(the held-out deals it may play)"
    )
    to_typed(compose_config("retrain", *sprt, "deals.heldout=30"))
    to_typed(compose_config("retrain", "retrain.sprt.min_deals=30", "deals.heldout=29"))  # fixed


def test_tunes_own_directories_are_local(tmp_path):
    """Ray Tune's state (read back to resume) and the best config (read back by Hydra) are
    local directories: a storage URI would become a folder named ``s3:``, an existing file
    would fail only after every trial. A local directory is the control."""
    a_file = tmp_path / "f"
    a_file.write_text("x")
    search = "hparams_search=ga_smoke"
    assert config_error("tune", search, "storage=s3://bucket/tune") == (
        "storage=s3://bucket/tune is not allowed: expected a local directory (this one cannot "
        "be in object storage)"
    )
    assert config_error("tune", search, f"best_dir={a_file}").endswith("a directory, not a file")
    assert config_error("tune", search, "best_dir=gs://b/best").startswith(
        "best_dir=gs://b/best is not allowed: expected a local directory"
    )
    ok = to_typed(compose_config("tune", search, f"storage={tmp_path}", f"best_dir={tmp_path}"))
    assert (ok.storage, ok.best_dir) == (str(tmp_path), str(tmp_path))
