"""The search's own state, beside Tune's: its parent run and the keys that define it.

``<storage>/<search-id>/sparring_search.json`` is written when a search starts. It holds the
parent MLflow run and, resolved, every key that a resume must keep (``KEPT``): the whole
``hparams_search`` section (target, objective, space, fixed and trial keys, scheduler), the
number of trials, the concurrency, the searcher's seed and where the runs are recorded. Tune
restores its own searcher and scheduler from its state; the driver and the trials read these
keys, so a resume takes them from here instead of from today's defaults (``resumed``): leaving
``hparams_search=`` out resumes the stored search, naming it again is fine, and an override that
would change a stored key is refused in one line.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from sparring.config.tune import TuneConfig
from sparring.runtime.config import to_container
from sparring.runtime.errors import ConfigError, UsageError
from sparring.tuning.space import nested

STATE_FILE = "sparring_search.json"
KEPT = (
    "hparams_search",
    "trials",
    "concurrency",
    "seed",
    "tracking.uri",
    "tracking.experiment",
    "tracking.artifact_root",
)
_MISSING = object()


@dataclass(frozen=True)
class SearchState:
    """What ``STATE_FILE`` holds. ``kept`` is empty for a search started before it was stored
    (such a search resumes with the keys given on the command line, as it did then)."""

    parent_run_id: str
    search_id: str
    kept: dict[str, Any]


def kept_keys(job: TuneConfig) -> dict[str, Any]:
    """The ``KEPT`` keys of ``job`` as plain JSON values (``hparams_search`` resolved whole)."""
    plain = to_container(job)
    return {key: _at(plain, key) for key in KEPT}


def save(directory: Path, state: SearchState) -> Path:
    """Write the state file into ``directory`` atomically, with the SHA-256 of its state inside
    it (``{"state": {...}, "sha256": ...}``, still JSON): a file cut short or changed later is
    refused, never resumed with today's defaults; returns its path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / STATE_FILE
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    body = {"parent_run_id": state.parent_run_id, "search_id": state.search_id, **state.kept}
    text = json.dumps(body, sort_keys=True, default=str)
    sealed = {"state": json.loads(text), "sha256": hashlib.sha256(text.encode()).hexdigest()}
    tmp.write_text(json.dumps(sealed, indent=2))
    os.replace(tmp, path)
    return path


REMEDY = "start the search anew under another search_id, or delete its directory"


def load(directory: Path) -> SearchState | None:
    """The state in ``directory``, None when there is none. It must prove itself: whole (its
    digest), of this search (the directory's name) and with every ``KEPT`` key; anything else
    is one ``UsageError`` line. A search started before states carried a digest has a plain
    JSON state: read as it is, but it still must hold every key (or, older still, none of
    ``KEPT``)."""
    path = directory / STATE_FILE
    if not path.exists():
        return None
    what = f"{path} (the search's stored state)"
    try:
        saved = json.loads(path.read_bytes())
    except ValueError:
        raise UsageError(f"{what} is not readable JSON (cut short?); {REMEDY}") from None
    sealed = isinstance(saved, dict) and "sha256" in saved and "state" in saved
    body = saved["state"] if sealed else saved
    if sealed:
        text = json.dumps(body, sort_keys=True, default=str)
        if hashlib.sha256(text.encode()).hexdigest() != saved["sha256"]:
            raise UsageError(f"{what} does not match its digest (changed?); {REMEDY}")
    if not isinstance(body, dict) or body.get("search_id") != directory.name:
        found = body.get("search_id") if isinstance(body, dict) else None
        raise UsageError(
            f"{what} is the state of search {found!r}, not {directory.name!r}; {REMEDY}"
        )
    missing = [key for key in ("parent_run_id", *KEPT) if key not in body]
    before_kept = missing == list(KEPT) and not sealed  # an older search's file
    if missing and not before_kept:
        raise UsageError(f"{what} lacks {', '.join(missing)}; {REMEDY}")
    kept = {key: body[key] for key in KEPT if key in body}
    return SearchState(str(body["parent_run_id"]), str(body["search_id"]), kept)


def resumed(job: TuneConfig, state: SearchState, overrides: Iterable[str]) -> TuneConfig:
    """``job`` with the stored keys of ``state`` in place of its own (all checks run again).

    ``overrides`` are the command line's (``hparams_search=ga_tpe``, ``trials=8``): one that
    would change a stored key is a ``ConfigError`` naming it, its stored value and that a
    resume keeps it; one that repeats the stored value is fine. Keys not given are taken from
    the state, whatever today's defaults or preset files say."""
    if not state.kept:
        return job
    _refuse_changes(job, state, overrides)
    from sparring.config import to_typed

    # Merged into the schema, not into the job: the stored space and fixed keys replace the
    # job's whole (a merge of two presets would keep keys only today's has).
    given = {k: v for k, v in to_container(job).items() if k != "hparams_search"}
    cfg = OmegaConf.merge(OmegaConf.structured(TuneConfig), given, nested(state.kept))
    assert isinstance(cfg, DictConfig)
    typed: TuneConfig = to_typed(cfg)
    return typed


def _refuse_changes(job: TuneConfig, state: SearchState, overrides: Iterable[str]) -> None:
    """Each override that touches a stored key must leave it as stored (of a key given twice,
    the last one counts, as in Hydra)."""
    plain = to_container(job)
    last = {override.lstrip("~+").partition("=")[0]: override for override in overrides}
    for override in last.values():
        key, _, value = override.lstrip("~+").partition("=")
        for kept in state.kept:
            if key != kept and not key.startswith(kept + ".") and not kept.startswith(key + "."):
                continue
            if key == "hparams_search":  # the group's option: the stored preset's name is fine
                stored_name = state.kept[kept].get("name")
                if value == stored_name and not override.startswith("~"):
                    continue
                _refuse(override, state, f"hparams_search={stored_name}")
            where = kept if kept.startswith(key + ".") else key  # a group: its stored key
            stored = _at(state.kept, where, kept)
            if override.startswith("~") or not _same(_at(plain, where), stored):
                _refuse(override, state, f"{where}={_text(stored)}")


def _refuse(override: str, state: SearchState, stored: str) -> None:
    raise ConfigError.text(
        f"{override} is not allowed with resume=true: search {state.search_id} keeps the "
        f"{stored} it started with (leave it out, or start a new search_id)"
    )


def _at(tree: Mapping[str, Any], key: str, top: str | None = None) -> Any:
    """The value at dotted ``key`` in ``tree``; ``top`` is a key of ``tree`` that may itself
    contain dots (a ``KEPT`` key such as ``tracking.uri``); ``_MISSING`` when absent."""
    node: Any = tree
    rest = key
    if top is not None and top in tree:
        node, rest = tree[top], key[len(top) + 1 :]
    for part in rest.split(".") if rest else []:
        if not isinstance(node, Mapping) or part not in node:
            return _MISSING
        node = node[part]
    return node


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON (tuples and lists, ints and floats of the same value alike)."""
    if a is _MISSING or b is _MISSING:
        return a is b
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def _text(value: Any) -> str:
    if value is _MISSING:
        return "(unset)"
    return value if isinstance(value, str) else json.dumps(value, default=str)
