"""The searchers of the FlagBots engine by name: which of its parts each one turns on, and its
budgets (``EngineSettings``).

Plain data, no kernels: the config check, the command line and ``--help`` name and validate
searchers without importing numba; ``sparring.flagbots.engine`` runs them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

MAX_PLY = 128  # the engine's per-ply buffers: a search goes at most MAX_PLY - 1 deep


@dataclass(frozen=True)
class EngineSettings:
    """One searcher: which parts of the engine are on, and its budgets."""

    name: str = "full"
    alpha_beta: bool = True
    iterative: bool = True
    tt: bool = True
    killers: bool = True
    history: bool = True
    aspiration: int = 0  # half-width of the aspiration window; 0 = off
    prune_destructs: bool = True
    reductions: bool = False  # principal-variation search and late-move reductions
    max_depth: int = 64
    time_s: float | None = 2.0
    memory_mb: int = 100

    def __post_init__(self) -> None:
        """Budgets must be usable; raises ValueError naming the field otherwise."""
        if not 1 <= self.max_depth < MAX_PLY:
            raise ValueError(
                f"max_depth={self.max_depth} is not allowed: expected 1..{MAX_PLY - 1}"
            )
        if self.time_s is not None and not self.time_s > 0:
            raise ValueError(f"time_s={self.time_s} is not allowed: expected None or > 0")
        if self.memory_mb < 1:
            raise ValueError(f"memory_mb={self.memory_mb} is not allowed: expected >= 1")
        if self.aspiration < 0:
            raise ValueError(f"aspiration={self.aspiration} is not allowed: expected >= 0")


SEARCHERS: dict[str, EngineSettings] = {
    "minimax": EngineSettings(
        "minimax",
        alpha_beta=False,
        iterative=False,
        tt=False,
        killers=False,
        history=False,
        prune_destructs=False,
    ),
    "alphabeta": EngineSettings(
        "alphabeta", iterative=False, tt=False, killers=False, history=False, prune_destructs=False
    ),
    "id": EngineSettings("id", tt=False, killers=False, history=False, prune_destructs=False),
    "id_tt": EngineSettings("id_tt", killers=False, history=False, prune_destructs=False),
    "id_tt_kh": EngineSettings("id_tt_kh", prune_destructs=False),
    "full": EngineSettings("full", aspiration=200),
    "reduced": EngineSettings("reduced", aspiration=200, reductions=True),
}


def searcher(kind: str, **overrides) -> EngineSettings:
    """The searcher ``kind`` (a key of SEARCHERS) with fields overridden (e.g. a new name)."""
    if kind not in SEARCHERS:
        raise ValueError(f"unknown searcher {kind!r}; choose from {', '.join(SEARCHERS)}")
    return replace(SEARCHERS[kind], **overrides)
