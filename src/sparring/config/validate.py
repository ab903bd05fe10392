"""``conf/validate.yaml``: the player model's validation grid on synthetic Mus players."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from sparring.config import checks
from sparring.config.common import ObjectiveConfig, StorageConfig
from sparring.mus.players import Profile
from sparring.runtime.errors import ConfigError
from sparring.runtime.ray.settings import RayConfig
from sparring.runtime.tracking.settings import TrackingConfig

_RATES = {f.name for f in fields(Profile)}
_PROFILE_KEYS = _RATES | {"shift_after", "shifted"}


def check_profile(key: str, spec: Any) -> dict[str, Any]:
    """A profile spec: rates of ``sparring.mus.players.Profile`` plus shift_after / shifted."""
    if not isinstance(spec, Mapping):
        raise ConfigError(key, spec, "a mapping of rates, e.g. {bluff_frequency: 0.8}")
    spec = dict(spec)
    for name, value in spec.items():
        if name not in _PROFILE_KEYS:
            raise ConfigError(
                f"{key}.{name}",
                value,
                f"a profile field: one of {', '.join(sorted(_PROFILE_KEYS))}",
            )
        if name == "shifted":
            spec[name] = check_profile(f"{key}.shifted", value)
        elif name in ("shift_after", "bet_size"):
            checks.integer(f"{key}.{name}", value, 1)
        else:
            checks.probability(f"{key}.{name}", value)
    return spec


def default_profiles() -> dict[str, Any]:
    """The synthetic players of the default grid (``conf/validate.yaml`` lists the same)."""
    return {
        "cautious": {
            "aggression": 0.15,
            "bluff_frequency": 0.1,
            "acceptance_rate": 0.35,
            "risk_tolerance": 0.15,
        },
        "balanced": {},
        "heavy_bluffer": {"aggression": 0.6, "bluff_frequency": 0.8, "bet_size": 10},
        "calling_station": {"acceptance_rate": 0.95, "risk_tolerance": 0.6},
        "shifter": {
            "aggression": 0.15,
            "shift_after": 60,
            "shifted": {"aggression": 0.8, "bluff_frequency": 0.3},
        },
    }


@dataclass
class DriftConfig:
    shifted: str = "shifter"  # a profile with shift_after: detection delay
    stationary: str = "balanced"  # false alarms per 100 hands
    hands: int = 120
    runs: int = 8

    def __post_init__(self) -> None:
        checks.integer("hands", self.hands, 2, 1_000_000)
        checks.integer("runs", self.runs, 1, 10_000)


@dataclass
class MatchConfig:
    """ModelingBot against the control (model off), post-game cycle on SQLite."""

    opponents: list[str] = field(
        default_factory=lambda: ["heavy_bluffer", "calling_station", "shifter"]
    )
    games: int = 150  # games per series
    series: int = 2  # independent series per opponent and arm

    def __post_init__(self) -> None:
        checks.integer("games", self.games, 2, 1_000_000)
        checks.integer("series", self.series, 1, 10_000)


@dataclass
class ValidateConfig(ObjectiveConfig):
    """Estimation error and coverage, separation, drift delay, calibration and the model's edge."""

    objective: str | None = "edge/heavy_bluffer"

    seed: int = 0
    seeds: int = 4  # repetitions of every estimation / separation grid point
    hands: list[int] = field(default_factory=lambda: [25, 50, 100, 200, 400])
    reference_hands: int = 4000  # hands that measure each profile's true rates
    level: float = 0.9  # credible level of the intervals whose coverage is measured
    profiles: dict[str, Any] = field(default_factory=default_profiles)
    estimate: list[str] = field(default_factory=lambda: ["cautious", "balanced", "heavy_bluffer"])
    separate: list[list[str]] = field(
        default_factory=lambda: [["cautious", "heavy_bluffer"], ["balanced", "balanced"]]
    )
    drift: DriftConfig = field(default_factory=DriftConfig)
    match: MatchConfig = field(default_factory=MatchConfig)
    output: str = "data/validate.parquet"
    ray: RayConfig = field(default_factory=RayConfig)
    tracking: TrackingConfig = field(default_factory=TrackingConfig)
    storage: StorageConfig = field(default_factory=StorageConfig)

    def __post_init__(self) -> None:
        checks.integer("seed", self.seed, 0, 2**62)
        checks.integer("seeds", self.seeds, 2, 10_000)
        checks.integers("hands", self.hands, 1, 1_000_000)
        checks.integer("reference_hands", self.reference_hands, 100, 10_000_000)
        checks.number("level", self.level, 0, 1, low_open=True, high_open=True)
        checks.storage_file("output", self.output)
        if not self.profiles:
            raise ConfigError(
                "profiles",
                self.profiles,
                "names mapped to rates, e.g. {bluffer: {bluff_frequency: 0.8}}",
            )
        self.profiles = {
            str(k): check_profile(f"profiles.{k}", v) for k, v in self.profiles.items()
        }
        for name in self.estimate:
            self._known("estimate", name)
        for pair in self.separate:
            if len(pair) != 2:
                raise ConfigError("separate", list(pair), "pairs of profile names")
            for name in pair:
                self._known("separate", name)
        shifted = self._known("drift.shifted", self.drift.shifted)
        self._known("drift.stationary", self.drift.stationary)
        for name in self.match.opponents:
            self._known("match.opponents", name)
        if "shift_after" not in self.profiles[shifted]:
            raise ConfigError("drift.shifted", shifted, "a profile with shift_after")
        if len(set(self.hands)) < 2 and self.estimate:
            raise ConfigError(
                "hands", self.hands, "at least two different sample sizes (to fit the slope)"
            )
        shift = self.profiles[shifted]["shift_after"]
        if self.drift.hands <= shift:
            raise ConfigError(
                "drift.hands", self.drift.hands, f"more than the shift of {shifted} ({shift})"
            )

    def _known(self, key: str, name: str) -> str:
        if name not in self.profiles:
            raise ConfigError(key, name, f"a defined profile: one of {', '.join(self.profiles)}")
        return name

    @property
    def pairs(self) -> list[tuple[str, str]]:
        return [(a, b) for a, b in self.separate]
