"""``conf/search_bench.yaml``: FlagBots searchers measured and matched."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from sparring.config import checks
from sparring.config.common import ObjectiveConfig, RayConfig, TrackingConfig
from sparring.runtime.errors import ConfigError
from sparring.search.engine import SEARCHERS


class Searcher(StrEnum):
    """The engine configurations of ``sparring.search.engine.SEARCHERS``, weakest first."""

    minimax = "minimax"
    alphabeta = "alphabeta"
    id = "id"
    id_tt = "id_tt"
    id_tt_kh = "id_tt_kh"
    full = "full"


class SuitePosition(StrEnum):
    """The fixed positions node counts are measured on."""

    start = "start"
    midgame = "midgame"
    wall_start = "wall_start"


assert {s.value for s in Searcher} == set(SEARCHERS), "Searcher must list every engine config"


def parse_player(key: str, spec: str) -> tuple[str, int]:
    """``searcher@depth`` (e.g. ``full@3``) as (searcher, depth)."""
    kind, _, depth = str(spec).partition("@")
    if kind not in SEARCHERS or not depth.isdigit() or int(depth) < 1:
        raise ConfigError(
            key, spec, f"searcher@depth, e.g. full@3 (searchers: {', '.join(SEARCHERS)})"
        )
    return kind, int(depth)


@dataclass
class SearchMatchConfig:
    """The round robin between fixed-depth players (``match.*``)."""

    players: dict[str, str] = field(
        default_factory=lambda: {"d1": "full@1", "d2": "full@2", "d3": "full@3"}
    )
    seeds: int = 4  # games per pairing and colour
    opening_plies: int = 2  # random plies the seed picks before the engines play

    def __post_init__(self) -> None:
        for name, spec in self.players.items():
            parse_player(f"players.{name}", spec)
        if len(self.players) == 1:
            raise ConfigError("players", dict(self.players), "at least two players (or none)")
        checks.integer("seeds", self.seeds, 1, 10_000)
        checks.integer("opening_plies", self.opening_plies, 0, 20)

    @property
    def parsed(self) -> dict[str, tuple[str, int]]:
        """Each player as (searcher, depth)."""
        return {name: parse_player(name, spec) for name, spec in self.players.items()}


@dataclass
class SearchBenchConfig(ObjectiveConfig):
    """Node counts per searcher and depth, depth in a time budget, a round robin with Elo."""

    searchers: list[Searcher] = field(default_factory=lambda: list(Searcher))
    depths: list[int] = field(default_factory=lambda: [1, 2, 3, 4])
    minimax_max_depth: int = 4  # plain minimax is exponential: stop it here
    positions: list[SuitePosition] = field(default_factory=lambda: list(SuitePosition))
    time_s: float = 2.0  # depth reached within this budget, per searcher, from the start
    memory_mb: int = 100
    match: SearchMatchConfig = field(default_factory=SearchMatchConfig)
    output_dir: str = "data/search_bench"
    ray: RayConfig = field(default_factory=RayConfig)
    tracking: TrackingConfig = field(default_factory=TrackingConfig)

    def __post_init__(self) -> None:
        checks.integers("depths", self.depths, 1, 30)
        checks.integer("minimax_max_depth", self.minimax_max_depth, 1, 30)
        checks.number("time_s", self.time_s, 0, 600, low_open=True)
        checks.integer("memory_mb", self.memory_mb, 1, 100_000)
        checks.path_text("output_dir", self.output_dir)
