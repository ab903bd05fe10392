"""The GA's parameters are declared once (``sparring.ga.params``): the kernel checks them with the
same one-line ``ConfigError`` the schema gives, and the schema takes their defaults and checks."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from sparring.ga.operators import CrossoverOperator, CrossoverPolicy
from sparring.ga.params import GAParams, TrainerStart
from sparring.runtime.errors import ConfigError


def test_defaults_pass_and_values_are_normalised():
    params = GAParams(
        p_crossover=1, variance=0, crossover_policy="random", trainer_start="baselines"
    )
    assert params.p_crossover == 1.0 and isinstance(params.p_crossover, float)
    assert isinstance(params.variance, float)
    assert params.crossover_policy is CrossoverPolicy.random
    assert params.trainer_start is TrainerStart.baselines
    assert GAParams().crossover_operator is CrossoverOperator.half_individual


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"population": 3}, "population=3 is not allowed: expected an integer in 4..100000"),
        (
            {"population": 10, "elitism": 10},
            "elitism=10 is not allowed: expected an integer in 0..9",
        ),
        ({"tournament": 65}, "tournament=65 is not allowed: expected an integer in 1..64"),
        ({"p_mutation": 1.5}, "p_mutation=1.5 is not allowed: expected a number in [0, 1]"),
        ({"mutation_genes": 0}, "mutation_genes=0 is not allowed: expected an integer in 1..540"),
        (
            {"crossover_policy": "zzz"},
            "crossover_policy=zzz is not allowed: expected one of cycle, random, fixed",
        ),
        (
            {"trainer_start": "x"},
            "trainer_start=x is not allowed: expected one of random, baselines",
        ),
        ({"trainer_size": 0}, "trainer_size=0 is not allowed: expected an integer in 1..10000"),
        ({"hall_every": 0}, "hall_every=0 is not allowed: expected an integer in 1..100000"),
        ({"seed": -1}, "seed=-1 is not allowed: expected an integer >= 0"),
    ],
)
def test_bad_values_are_one_line_config_errors(changes, message):
    with pytest.raises(ConfigError) as caught:
        GAParams(**changes)
    assert str(caught.value) == message
    assert isinstance(caught.value, ValueError)  # callers that caught the old ValueError still do
    with pytest.raises(ConfigError):  # replace() checks again
        dataclasses.replace(GAParams(), **changes)


def test_the_schema_takes_the_kernel_defaults_and_derives_every_field():
    from sparring.config.evolve import EvolveConfig, GAConfig, TrainersConfig

    kernel = GAParams()
    for schema in (GAConfig, TrainersConfig):
        for field in dataclasses.fields(schema):
            if hasattr(kernel, field.name) and field.name != "start":  # start: the pipeline's
                assert field.default == getattr(kernel, field.name), (schema, field.name)
    typed = EvolveConfig(seed=4, table_size=6)
    params = typed.params  # every GAParams field found in the schema (a KeyError otherwise)
    assert params.trainer_size == 5 and params.seed == 4
    assert params.trainer_start is TrainerStart.baselines


def test_the_params_module_imports_no_configuration_framework():
    code = (
        "import sys, sparring.ga.params\n"
        "heavy = [m for m in ('hydra', 'omegaconf', 'ray', 'mlflow', 'sparring.config')"
        " if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
