"""Names that were changed: the old spelling is refused in one line naming the new one.

Config keys (``RENAMED``), config-group options such as a search preset (``RENAMED_OPTIONS``),
and pipelines (``RENAMED_PIPELINES``: their script, their config and the value of a search's
``pipeline``).

Checked on the command line's overrides before Hydra composes anything (so before Ray starts),
by ``launch`` for ``python pipelines/<name>.py`` and ``sparring <name>``, and by ``sparring
submit``. Without it an old key would read as an unknown one (or, for a config group, as
Hydra's "no match in the defaults list"), which does not say what to type instead.
"""

from __future__ import annotations

from collections.abc import Sequence

from sparring.runtime.errors import UsageError

RENAMED: dict[str, dict[str, str]] = {
    # the Ray Tune search space, not game-tree search (``conf/flagbots_bench.yaml``)
    "tune": {"search": "hparams_search"},
}
"""Pipeline (= primary config name) -> {old top-level key or config group: its new name}."""

RENAMED_PIPELINES: dict[str, str] = {
    # FlagBots' searchers measured and matched: named after the game, not "search" (tune's)
    "search_bench": "flagbots_bench",
}
"""Old pipeline name -> its new name."""

RENAMED_OPTIONS: dict[str, dict[str, str]] = {
    "hparams_search": {"search_tpe": "flagbots_tpe"},
    "sweep": {"search_configs": "flagbots_configs"},
    "pipeline": dict(RENAMED_PIPELINES),  # a search's target (``sparring tune pipeline=...``)
}
"""Config group (or key) -> {old option: its new name}."""


def refuse_renamed_pipeline(name: str, how: str = "{}") -> None:
    """Raise ``UsageError`` when ``name`` is a pipeline's old name; ``how`` shows a name as the
    user typed it (``"pipelines/{}.py"``)."""
    if name in RENAMED_PIPELINES:
        new = RENAMED_PIPELINES[name]
        raise UsageError(f"{how.format(name)} was renamed: use {how.format(new)}")


def refuse_renamed(pipeline: str, overrides: Sequence[str]) -> None:
    """Raise ``UsageError`` for the first override that uses a renamed key or option, e.g.
    ``search=ga_tpe`` -> ``search= was renamed: use hparams_search=ga_tpe``, and
    ``hparams_search=search_tpe`` -> ``... was renamed: use hparams_search=flagbots_tpe``."""
    renamed = RENAMED.get(pipeline, {})
    for override in overrides:
        if override.startswith("-"):  # Hydra's flags (-m, --cfg job, -cn ...)
            continue
        body = override.lstrip("+~")
        prefix = override[: len(override) - len(body)]
        key, equals, value = body.partition("=")
        if not equals and not prefix.startswith("~"):
            continue  # not an override: a flag's value
        head = key.split(".", 1)[0].split("@", 1)[0]
        if head in renamed:
            new = renamed[head] + key[len(head) :]
            raise UsageError(f"{key}= was renamed: use {prefix}{new}{equals}{value}")
        options = RENAMED_OPTIONS.get(key, {})  # an old preset, sweep or pipeline by name
        if value in options:
            raise UsageError(
                f"{key}={value} was renamed: use {prefix}{key}{equals}{options[value]}"
            )
