"""``conf/flagbots_bench.yaml``: FlagBots searchers measured and matched."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from sparring.config import checks
from sparring.config.common import ObjectiveConfig, StorageConfig
from sparring.flagbots.searchers import SEARCHERS, searcher
from sparring.runtime.errors import ConfigError
from sparring.runtime.ray.settings import RayConfig
from sparring.runtime.tracking.settings import TrackingConfig


class Searcher(StrEnum):
    """The engine configurations of ``sparring.flagbots.searchers.SEARCHERS``, weakest first."""

    minimax = "minimax"
    alphabeta = "alphabeta"
    id = "id"
    id_tt = "id_tt"
    id_tt_kh = "id_tt_kh"
    full = "full"
    reduced = "reduced"


class SuitePosition(StrEnum):
    """The fixed positions node counts are measured on."""

    start = "start"
    midgame = "midgame"
    wall_start = "wall_start"


assert {s.value for s in Searcher} == set(SEARCHERS), "Searcher must list every engine config"


@dataclass(frozen=True)
class Player:
    """A match player: a searcher at a fixed depth or with a time budget per move, and engine
    settings that differ from the searcher's own."""

    kind: str
    depth: int | None  # fixed depth (reproducible games), or None: ``time_s`` per move
    time_s: float | None = None
    overrides: tuple[tuple[str, int], ...] = ()

    def engine(self, name: str):
        """Its ``EngineSettings``, named ``name``."""
        budget = {"time_s": self.time_s} if self.time_s else {}
        return searcher(self.kind, name=name, **budget, **dict(self.overrides))


def parse_player(key: str, spec: str) -> Player:
    """``searcher@depth`` (``full@3``) or ``searcher@<n>ms`` (``full@50ms``: a time budget per
    move, so games depend on the machine's speed) as a ``Player``."""
    kind, _, budget = str(spec).partition("@")
    allowed = f"searcher@depth or searcher@<n>ms, e.g. full@3 (searchers: {', '.join(SEARCHERS)})"
    if kind not in SEARCHERS:
        raise ConfigError(key, spec, allowed)
    if budget.isdigit() and int(budget) >= 1:
        return Player(kind, int(budget))
    if budget.endswith("ms") and budget[:-2].isdigit() and int(budget[:-2]) >= 1:
        return Player(kind, None, int(budget[:-2]) / 1000)
    raise ConfigError(key, spec, allowed)


@dataclass
class ChallengerConfig:
    """An extra player, ``challenger``, whose engine settings are searched (``flagbots_tpe``):
    its spec and the aspiration window and transposition table size of its searcher."""

    spec: str | None = None  # e.g. full@40ms; null = no challenger
    aspiration: int | None = None  # half-width of the aspiration window (0 = off); null = own
    memory_mb: int | None = None  # transposition table size; null = the searcher's own

    def __post_init__(self) -> None:
        if self.spec is not None:
            parse_player("spec", self.spec)
        checks.optional_integer("aspiration", self.aspiration, 0, 100_000)
        checks.optional_integer("memory_mb", self.memory_mb, 1, 100_000)

    def player(self) -> Player | None:
        if self.spec is None:
            return None
        settings = {"aspiration": self.aspiration, "memory_mb": self.memory_mb}
        overrides = tuple((k, v) for k, v in settings.items() if v is not None)
        base = parse_player("spec", self.spec)
        return Player(base.kind, base.depth, base.time_s, overrides)


@dataclass
class SearchMatchConfig:
    """The round robin between players (``match.*``)."""

    players: dict[str, str] = field(
        default_factory=lambda: {"d1": "full@1", "d2": "full@2", "d3": "full@3"}
    )
    seeds: int = 4  # games per pairing and colour
    opening_plies: int = 2  # random plies the seed picks before the engines play
    challenger: ChallengerConfig = field(default_factory=ChallengerConfig)

    def __post_init__(self) -> None:
        for name, spec in self.players.items():
            parse_player(f"players.{name}", spec)
        if "challenger" in self.players and self.challenger.spec is not None:
            raise ConfigError("players.challenger", self.players["challenger"], "another name")
        if len(self.parsed) == 1:
            raise ConfigError("players", dict(self.players), "at least two players (or none)")
        checks.integer("seeds", self.seeds, 1, 10_000)
        checks.integer("opening_plies", self.opening_plies, 0, 20)

    @property
    def parsed(self) -> dict[str, Player]:
        """Every player by name, the challenger (if any) last."""
        players = {name: parse_player(name, spec) for name, spec in self.players.items()}
        challenger = self.challenger.player()
        if challenger is not None:
            players["challenger"] = challenger
        return players


@dataclass
class FlagBotsBenchConfig(ObjectiveConfig):
    """Node counts per searcher and depth, depth in a time budget, a round robin with Elo."""

    searchers: list[Searcher] = field(default_factory=lambda: list(Searcher))
    depths: list[int] = field(default_factory=lambda: [1, 2, 3, 4])
    minimax_max_depth: int = 4  # plain minimax is exponential: stop it here
    positions: list[SuitePosition] = field(default_factory=lambda: list(SuitePosition))
    time_s: float = 2.0  # depth reached within this budget, per searcher, from the start
    memory_mb: int = 100
    match: SearchMatchConfig = field(default_factory=SearchMatchConfig)
    output_dir: str = "data/flagbots_bench"
    ray: RayConfig = field(default_factory=RayConfig)
    tracking: TrackingConfig = field(default_factory=TrackingConfig)
    storage: StorageConfig = field(default_factory=StorageConfig)

    def __post_init__(self) -> None:
        if not self.searchers and not self.match.parsed:  # Ray and MLflow started for nothing
            raise ConfigError(
                "searchers",
                [],
                f"some of {', '.join(Searcher)}, or match players (with neither, nothing is "
                "measured)",
            )
        checks.integers("depths", self.depths, 1, 30)
        checks.integer("minimax_max_depth", self.minimax_max_depth, 1, 30)
        checks.number("time_s", self.time_s, 0, 600, low_open=True)
        checks.integer("memory_mb", self.memory_mb, 1, 100_000)
        checks.storage_dir("output_dir", self.output_dir)
