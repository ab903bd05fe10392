import pytest
from omegaconf import OmegaConf

from sparring.runtime.config import (
    ConfigError,
    config_hash,
    flatten,
    require_choice,
    require_int,
    require_ints,
)


def test_flatten_nested_config():
    cfg = OmegaConf.create({"a": {"b": 1, "c": [1, 2]}, "d": "x"})
    assert flatten(cfg) == {"a.b": 1, "a.c": "[1, 2]", "d": "x"}


def test_hash_ignores_key_order_and_sees_values():
    assert config_hash({"a": 1, "b": 2}) == config_hash({"b": 2, "a": 1})
    assert config_hash({"a": 1}) != config_hash({"a": 2})


def test_validation_messages_name_key_value_and_allowed():
    with pytest.raises(ConfigError, match=r"trials=0 is not allowed: expected an integer >= 1"):
        require_int({"trials": 0}, "trials", 1)
    with pytest.raises(ConfigError, match=r"n='5' is not allowed: expected an integer in 1..9"):
        require_int({"n": "5"}, "n", 1, 9)
    with pytest.raises(ConfigError, match=r"opponents contains 12: values must be in 1..9"):
        require_ints({"opponents": [1, 12]}, "opponents", 1, 9)
    with pytest.raises(ConfigError, match="expected one of cycle, random"):
        require_choice({"policy": "x"}, "policy", ["cycle", "random"])
    assert require_int({"n": 3}, "n", 1, 9) == 3
