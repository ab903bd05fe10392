"""``conf/eleusis_bench.yaml``: deck families x starting harma x scientists x seeds."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sparring.config import checks
from sparring.config.common import ObjectiveConfig, StorageConfig
from sparring.eleusis.decks import parse_deck
from sparring.eleusis.hypotheses import hypotheses
from sparring.eleusis.limits import MAX_H0
from sparring.eleusis.roster import NAMES, PARAMS, parse_scientist
from sparring.runtime.errors import ConfigError
from sparring.runtime.ray.settings import RayConfig
from sparring.runtime.tracking.settings import TrackingConfig


def _specs(key: str, specs: list[str], parse: Callable[[str], object], hint: str) -> None:
    if not specs:
        raise ConfigError(key, specs, f"a non-empty list {hint}")
    for spec in specs:
        try:
            parse(str(spec))
        except ValueError as exc:
            raise ConfigError(key, spec, f"{hint} ({exc})") from None


SCIENTIST_OF = {
    "dirichlet_alpha": "dirichlet_gibbs",
    "kl_ucb_c": "kl_ucb",
    "frequency_reset": "frequency",
}


@dataclass
class ScientistParams:
    """The parameter of a scientist listed without one (``kl_ucb``, not ``kl_ucb:c=0.3``);
    null = its default. What ``sparring tune hparams_search=eleusis_tpe`` searches."""

    dirichlet_alpha: float | None = None  # dirichlet_gibbs: the Dirichlet prior (default 0.1)
    kl_ucb_c: float | None = None  # kl_ucb: exploration c of the bound c·log(t + 2) (0.5)
    frequency_reset: float | None = None  # frequency: harma since the last reset (50)

    def apply(self, spec: str) -> str:
        """``spec`` with this parameter when it names none: ``kl_ucb`` -> ``kl_ucb:c=0.7``."""
        if ":" in spec:
            return spec
        for field_name, name in SCIENTIST_OF.items():
            value = getattr(self, field_name)
            if spec == name and value is not None:
                return f"{name}:{PARAMS[name][0]}={value:g}"
        return spec

    def __post_init__(self) -> None:
        for field_name, name in SCIENTIST_OF.items():
            value = getattr(self, field_name)
            if value is None:
                continue
            try:
                parse_scientist(f"{name}:{PARAMS[name][0]}={value!r}")
            except ValueError as exc:
                _, low, high = PARAMS[name]
                raise ConfigError(field_name, value, f"a number in ({low:g}, {high:g})") from exc


@dataclass
class EleusisBenchConfig(ObjectiveConfig):
    """Games of every scientist on every deck, against the oracle."""

    decks: list[str] = field(default_factory=lambda: ["spike:alpha=0.5"])  # family[:k=v,...]
    h0: list[int] = field(default_factory=lambda: [100])  # starting harma
    scientists: list[str] = field(default_factory=lambda: ["frequency", "oracle"])
    seeds: int = 20  # games per cell (deck instance i + card stream i)
    cap: int = 100_000  # guesses before a game is a DNF
    output: str = "data/eleusis_bench.parquet"
    params: ScientistParams = field(default_factory=ScientistParams)
    ray: RayConfig = field(default_factory=RayConfig)
    tracking: TrackingConfig = field(default_factory=TrackingConfig)
    storage: StorageConfig = field(default_factory=StorageConfig)

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
        checks.integers("h0", self.h0, 1, MAX_H0)  # the oracle's memory grows with h0
        checks.integer("seeds", self.seeds, 1, 1_000_000)
        checks.integer("cap", self.cap, 1, 1_000_000)
        checks.storage_file("output", self.output)

    def played(self) -> list[str]:
        """The scientists as played: ``params`` filled into the specs that name none."""
        return [self.params.apply(spec) for spec in self.scientists]
