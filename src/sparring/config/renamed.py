"""Config keys that were renamed: the old spelling is refused in one line naming the new one.

Checked on the command line's overrides before Hydra composes anything (so before Ray starts),
by ``launch`` for ``python pipelines/<name>.py`` and ``sparring <name>``, and by ``sparring
submit``. Without it an old key would read as an unknown one (or, for a config group, as
Hydra's "no match in the defaults list"), which does not say what to type instead.
"""

from __future__ import annotations

from collections.abc import Sequence

from sparring.runtime.errors import UsageError

RENAMED: dict[str, dict[str, str]] = {
    # the Ray Tune search space, not game-tree search (``conf/search_bench.yaml``)
    "tune": {"search": "hparams_search"},
}
"""Pipeline (= primary config name) -> {old top-level key or config group: its new name}."""


def refuse_renamed(pipeline: str, overrides: Sequence[str]) -> None:
    """Raise ``UsageError`` for the first override that uses a renamed key, e.g.
    ``search=ga_tpe`` -> ``search= was renamed: use hparams_search=ga_tpe``."""
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
