import enum
from dataclasses import dataclass, field

from omegaconf import OmegaConf

from sparring.runtime.config import config_hash, flatten, to_container


def test_flatten_nested_config():
    cfg = OmegaConf.create({"a": {"b": 1, "c": [1, 2]}, "d": "x"})
    assert flatten(cfg) == {"a.b": 1, "a.c": "[1, 2]", "d": "x"}


def test_hash_ignores_key_order_and_sees_values():
    assert config_hash({"a": 1, "b": 2}) == config_hash({"b": 2, "a": 1})
    assert config_hash({"a": 1}) != config_hash({"a": 2})


class Colour(enum.StrEnum):
    red = "red"


@dataclass
class Inner:
    colour: Colour = Colour.red
    sizes: list[int] = field(default_factory=lambda: [1, 2])


@dataclass
class Outer:
    inner: Inner = field(default_factory=Inner)
    name: str | None = None


def test_a_typed_config_flattens_and_hashes_like_its_yaml():
    yaml = OmegaConf.create({"inner": {"colour": "red", "sizes": [1, 2]}, "name": None})
    assert to_container(Outer()) == OmegaConf.to_container(yaml)
    assert flatten(Outer()) == flatten(yaml)
    assert config_hash(Outer()) == config_hash(yaml)
