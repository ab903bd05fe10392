"""``--help`` of a pipeline: what it does, the groups it takes, its config; nothing else.

Hydra's own help lists every configuration group of the search path, so ``sparring tune --help``
showed ``schema:`` (the typed schemas, not something a user picks) and ``sweep:`` (presets of
other pipelines). This one lists only the groups the pipeline's own defaults list names, minus
``schema``, and of ``sweep`` only the presets written for this pipeline. Hydra's help stays at
``--hydra-help``. Nothing heavy is imported: Hydra composes, nothing runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

HELP_FLAGS = ("--help", "-h")
CHECK_FLAG = "--check"  # compose and check the config, run nothing (launch.app)
CHECK_ENV = "SPARRING_CHECK_ONLY"  # set while a --check runs: a sweep opens no parent run
INTERNAL_GROUPS = ("schema",)  # chosen by the pipeline itself, never by its user


def wants_help(argv: list[str]) -> bool:
    """Whether the command line asks for the pipeline's help (``--help`` or ``-h``)."""
    return any(arg in HELP_FLAGS for arg in argv)


def header(config_file: Path) -> str:
    """The config file's opening comment: what the pipeline does and how it is called."""
    lines = []
    for line in config_file.read_text().splitlines():
        if not line.startswith("#"):
            break
        lines.append(line[1:].removeprefix(" "))
    return "\n".join(lines)


def defaults_groups(config_file: Path) -> list[str]:
    """The groups the config's defaults list names, in its order (``schema`` left out)."""
    from omegaconf import OmegaConf

    defaults = OmegaConf.to_container(OmegaConf.load(config_file)).get("defaults", [])  # type: ignore[union-attr]
    groups = []
    for entry in defaults:
        if isinstance(entry, dict):
            for key in entry:
                group = str(key).removeprefix("override ").lstrip("+/")
                if group not in INTERNAL_GROUPS and group not in groups:
                    groups.append(group)
    return groups


def sweep_presets(conf_dir: Path, config_name: str) -> list[str]:
    """The sweep presets written for this pipeline: those whose file shows how to run them
    with ``pipelines/<config_name>.py -m sweep=<preset>``."""
    return sorted(
        path.stem
        for path in (conf_dir / "sweep").glob("*.yaml")
        if f"pipelines/{config_name}.py -m sweep={path.stem}" in path.read_text()
    )


def render(conf_dir: str, config_name: str, overrides: list[str]) -> str:
    """The help text of ``pipelines/<config_name>.py`` with ``overrides`` applied."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from omegaconf import OmegaConf

    root = Path(conf_dir)
    config_file = root / f"{config_name}.yaml"
    with initialize_config_dir(config_dir=str(root), version_base="1.3"):
        cfg: Any = compose(config_name, overrides=overrides)
        loader = GlobalHydra.instance().config_loader()
        groups = {}
        for group in defaults_groups(config_file):
            options = (
                sweep_presets(root, config_name)
                if group == "sweep"
                else loader.get_group_options(group)
            )
            if options:
                groups[group] = options
    width = max((len(g) for g in groups), default=0)
    group_lines = [f"  {g + ':':<{width + 1}} {', '.join(o)}" for g, o in groups.items()]
    sweep_note = ["  (sweep=<preset> runs with -m: a multirun)"] if "sweep" in groups else []
    return "\n".join(
        [
            header(config_file),
            "",
            f"== Configuration groups ({config_name}: group=option) ==",
            *group_lines,
            *sweep_note,
            "",
            "== Config == (override any key: key=value; the schema checks every value)",
            OmegaConf.to_yaml(cfg).rstrip(),
            "",
            "--check: compose and check the command's config (keys, values, paths, the tracking "
            "store) and exit 0, running nothing",
            "Hydra's own options (--cfg job, -m, --multirun, ...): --hydra-help",
        ]
    )
