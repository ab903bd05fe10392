"""How a run's params read to a person: short keys, short values, and which keys are about
where things run or go (infrastructure, paths) rather than what is computed.

Run names (``runtime.tracking.runs.default_run_name``) and ``sparring compare`` both use these, so a
name and a comparison table leave out and shorten the same things.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

# Config groups that say where a run executes or records, never what it computes.
INFRASTRUCTURE = ("ray", "tracking", "storage", "hydra")
# A key whose last part is one of these (or ends with ``_<one of these>``) names a location.
_PATH_WORDS = ("root", "dir", "path", "file", "output", "uri", "location")
# A relative file path with an extension: data/equity/table.parquet
_RELATIVE_FILE = re.compile(r"[\w.-]+(/[\w.-]+)+\.[A-Za-z]\w{0,7}")
MAX_VALUE = 24  # characters of a shown value before it is cut with "…"


def is_path(value: Any) -> bool:
    """Whether ``value`` reads as a path or URI (``s3://b/x``, ``/abs``, ``~/x``, ``./x``,
    ``data/x.parquet``)."""
    text = str(value)
    return (
        "://" in text
        or text.startswith(("/", "~", "./", "../"))
        or _RELATIVE_FILE.fullmatch(text) is not None
    )


def is_path_key(key: str) -> bool:
    """Whether the dotted ``key`` names a location (``deals.root``, ``checkpoint_root``,
    ``output_dir``, ``output``)."""
    last = key.rsplit(".", 1)[-1].lower()
    return any(last == w or last.endswith("_" + w) for w in _PATH_WORDS)


def is_infrastructure(key: str, value: Any = None) -> bool:
    """Whether param ``key`` (with ``value``) says where things run or go rather than what is
    computed: the groups ``ray``/``tracking``/``storage``/``hydra`` (a key in them or the group
    chosen), a location key, or a path/URI value. ``None`` values are never paths."""
    head = key.lstrip("+~").split(".", 1)[0]
    if head in INFRASTRUCTURE or is_path_key(key):
        return True
    return value is not None and is_path(value)


def short_value(value: Any, limit: int = MAX_VALUE) -> str:
    """A value as a person reads it: a float (or its text, ``"0.3496857506482932"``) to 4
    significant digits (``0.3497``), an int as is, text longer than ``limit`` cut with "…"."""
    text = str(value)
    number = _float(value)
    if number is not None and not float(number).is_integer():
        text = f"{number:.4g}"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _float(value: Any) -> float | None:
    """``value`` as a finite float if it is one or is a float's text ("1e-3", "0.25"), else
    None; ints and their text ("64") stay None so they print unchanged."""
    if isinstance(value, int):  # bool is an int too
        return None
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    text = str(value).strip()
    if not re.fullmatch(r"[-+]?(\d+\.\d*|\.\d+|\d+(\.\d*)?[eE][-+]?\d+)", text):
        return None
    return float(text)


def short_names(keys: Iterable[str], among: Iterable[str] = ()) -> dict[str, str]:
    """A short name per dotted key: its shortest dotted suffix that no other key (of ``keys``
    and ``among``) shares (``ga.p_mutation`` -> ``p_mutation``; ``retrain.checkpoint_root`` and
    ``checkpoint_root`` keep enough to differ)."""
    wanted = list(dict.fromkeys(keys))
    every = set(wanted) | set(among)
    names = {}
    for key in wanted:
        parts = key.split(".")
        for n in range(1, len(parts) + 1):
            tail = ".".join(parts[-n:])
            if all(not (o == tail or o.endswith("." + tail)) for o in every if o != key):
                names[key] = tail
                break
        else:
            names[key] = key
    return names
