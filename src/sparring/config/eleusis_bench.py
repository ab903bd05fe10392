"""``conf/eleusis_bench.yaml``: deck families x starting harma x scientists x seeds."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sparring.config import checks
from sparring.config.common import ObjectiveConfig, RayConfig, TrackingConfig
from sparring.eleusis.decks import parse_deck
from sparring.eleusis.informed import hypotheses
from sparring.eleusis.scientists import NAMES, parse_scientist
from sparring.runtime.errors import ConfigError


def _specs(key: str, specs: list[str], parse: Callable[[str], object], hint: str) -> None:
    if not specs:
        raise ConfigError(key, specs, f"a non-empty list {hint}")
    for spec in specs:
        try:
            parse(str(spec))
        except ValueError as exc:
            raise ConfigError(key, spec, f"{hint} ({exc})") from None


@dataclass
class EleusisBenchConfig(ObjectiveConfig):
    """Games of every scientist on every deck, against the oracle."""

    decks: list[str] = field(default_factory=lambda: ["spike:alpha=0.5"])  # family[:k=v,...]
    h0: list[int] = field(default_factory=lambda: [100])  # starting harma
    scientists: list[str] = field(default_factory=lambda: ["frequency", "oracle"])
    seeds: int = 20  # games per cell (deck instance i + card stream i)
    cap: int = 100_000  # guesses before a game is a DNF
    output: str = "data/eleusis_bench.parquet"
    ray: RayConfig = field(default_factory=RayConfig)
    tracking: TrackingConfig = field(default_factory=TrackingConfig)

    def __post_init__(self) -> None:
        _specs("decks", self.decks, parse_deck, "like [spike:alpha=0.5]")
        _specs("scientists", self.scientists, parse_scientist, f"from {', '.join(NAMES)}")
        if "informed" in self.scientists:  # it enumerates each deck family: check them up front
            for deck in self.decks:
                try:
                    hypotheses(deck)
                except ValueError as exc:
                    raise ConfigError(
                        "decks", deck, f"a finite family for informed ({exc})"
                    ) from None
        checks.integers("h0", self.h0, 1, 1_000_000)
        checks.integer("seeds", self.seeds, 1, 1_000_000)
        checks.integer("cap", self.cap, 1, 1_000_000)
        checks.path_text("output", self.output)
