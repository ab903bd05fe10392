"""Pipeline bodies: each ``run(cfg)`` validates its config, fans out on Ray, writes Parquet and
records an MLflow run. The Hydra entry points in ``pipelines/`` are thin wrappers around these.

``PIPELINES`` declares, once, what each body offers beyond its ``run``: the launcher
(``launch.app``, for ``pipelines/<name>.py`` and ``sparring <name>`` alike) reads whether a run
resumes, its exit status and its preflight there, and the ``tune`` body whether a target reports
steps and prepares shared inputs. Importing this package imports no body: the functions a trait
names are imported by name, when first needed, so a ``--help`` or a bad override stays fast.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PipelineTraits:
    """What a pipeline body ``sparring.pipelines.<name>`` offers beyond its ``run(config)``.

    ``resumable``: running the same command again continues an interrupted run (said in the
    Ctrl-C line); a function of the typed config where that depends on it (evolve's
    ``resume``), which is also False when the interrupt came before the config was typed.
    ``exit_status``: the body has ``exit_status(result)``, the process's exit status for the
    result of a single run (retrain: 0 promoted, 10 kept); otherwise a finished run exits 0.
    ``preflight``: a ``"module:function"`` that checks the typed config further before the body
    is imported (compare: the store it reads); a launch check, so it lives in ``launch``.
    ``steps``: the body has ``steps(config)``, the steps it reports (a search stops a trial
    early on them with ASHA). ``prepare``: the body has ``prepare(config)``, the inputs every
    trial of a search shares, made once by the search (evolve: its deal sets)."""

    name: str
    resumable: bool | Callable[[Any], bool] = False
    exit_status: bool = False
    preflight: str | None = None
    steps: bool = False
    prepare: bool = False

    @property
    def module(self) -> str:
        """The body's module: ``sparring.pipelines.<name>``."""
        return f"{__name__}.{self.name}"

    def function(self, name: str) -> str:
        """``"sparring.pipelines.<name>:<function>"``: a function of the body, by name (what
        ``launch.app.resolve`` imports)."""
        return f"{self.module}:{name}"


def _once_typed(config: Any) -> bool:
    """Resumable, but only once the config is typed: an interrupt while Hydra composes it has
    run nothing to resume."""
    return True


def _resume_key(config: Any) -> bool:
    """Resumable when the run was started with ``resume=true``."""
    return bool(config.resume)


PIPELINES: dict[str, PipelineTraits] = {
    traits.name: traits
    for traits in (
        PipelineTraits("arena", resumable=_once_typed),
        PipelineTraits("compare", preflight="sparring.launch.preflight:check_compare"),
        PipelineTraits("eleusis_bench"),
        PipelineTraits("equity"),
        PipelineTraits("evolve", resumable=_resume_key, steps=True, prepare=True),
        PipelineTraits(
            "handgen", resumable=True, preflight="sparring.launch.preflight:check_handgen"
        ),
        PipelineTraits("league"),
        PipelineTraits("retrain", resumable=True, exit_status=True),
        PipelineTraits("flagbots_bench"),
        PipelineTraits("tune", exit_status=True),
        PipelineTraits("validate"),
    )
}
"""Pipeline name (= its body's module, its script and its primary config) -> its traits."""

__all__ = ["PIPELINES", "PipelineTraits"]
