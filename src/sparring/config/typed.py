"""From a composed Hydra config to the pipeline's typed object.

``to_typed(cfg)`` is ``OmegaConf.to_object(cfg)`` with one difference: a ``ConfigError`` raised
in a nested schema's ``__post_init__`` gets the full dotted key (``ga.population``, not
``population``), because each schema names only its own fields.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from omegaconf import DictConfig, ListConfig, OmegaConf

from sparring.runtime.errors import ConfigError

T = TypeVar("T")


def to_typed(cfg: DictConfig, expected: type[T] | None = None) -> T:
    """The typed object of a composed config; checks every ``__post_init__``.

    ``expected`` (optional) is the schema the config must have been composed with.
    """
    if expected is not None and not _is_instance_type(cfg, expected):
        raise TypeError(f"config has type {OmegaConf.get_type(cfg)}, expected {expected.__name__}")
    typed: T = _build(cfg, "")
    return typed


def _is_instance_type(cfg: DictConfig, expected: type) -> bool:
    actual = OmegaConf.get_type(cfg)
    return isinstance(actual, type) and issubclass(actual, expected)


def _build(node: Any, path: str) -> Any:
    if isinstance(node, DictConfig):
        if node._is_none():
            return None
        object_type = OmegaConf.get_type(node)
        if object_type is not None and dataclasses.is_dataclass(object_type):
            names = [f.name for f in dataclasses.fields(object_type)]
            extra = [str(k) for k in node if k not in names]
            if extra:  # added with +key=value: Hydra lets it through, the schema does not
                raise ConfigError(
                    _join(path, extra[0]), node[extra[0]], f"a known key: one of {', '.join(names)}"
                )
            kwargs = {}
            for field in dataclasses.fields(object_type):
                if not field.init:
                    continue
                child = node._get_node(field.name)
                if isinstance(child, (DictConfig, ListConfig)):
                    kwargs[field.name] = _build(child, _join(path, field.name))
                else:  # a value: indexing resolves interpolations and converts enums
                    kwargs[field.name] = node[field.name]
            try:
                return object_type(**kwargs)
            except ConfigError as exc:
                raise exc.under(path) from None
        # a mapping (e.g. dict[str, ParamSpace]): its typed values are built like fields
        built = {}
        for key in node:
            child = node._get_node(key)
            if isinstance(child, (DictConfig, ListConfig)):
                built[str(key)] = _build(child, _join(path, str(key)))
            else:
                built[str(key)] = node[key]
        return built
    return None if node._is_none() else OmegaConf.to_container(node, resolve=True)


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name
