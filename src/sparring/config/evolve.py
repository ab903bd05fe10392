"""``conf/evolve.yaml`` and ``conf/retrain.yaml``: the genetic algorithm and its retraining."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum
from typing import Any

from sparring.arena.agents import parse
from sparring.arena.sprt import MeanSPRT
from sparring.config import checks
from sparring.config.arena import LimitsConfig
from sparring.config.common import ObjectiveConfig, StorageConfig
from sparring.config.handgen import PreflopConfig
from sparring.ga.operators import CrossoverOperator, CrossoverPolicy
from sparring.ga.params import (
    GAParams,
    TrainerStart,
    check_breeding,
    check_hall,
    check_seed,
    check_trainer_size,
)
from sparring.poker.catalog import BASELINES, MAX_SEATS, MIN_SEATS
from sparring.poker.deal_set_config import DealSetConfig
from sparring.runtime.config import config_hash
from sparring.runtime.errors import ConfigError
from sparring.runtime.ray.settings import RayConfig
from sparring.runtime.storage.location import Location
from sparring.runtime.tracking.settings import TrackingConfig


@dataclass
class GAConfig:
    """The algorithm's operators and sizes (``ga.*``): the breeding parameters are ``GAParams``'s
    (their defaults, meaning and checks are declared there), plus the run's length and chunks."""

    population: int = GAParams.population
    generations: int = 200
    tournament: int = GAParams.tournament
    elitism: int = GAParams.elitism
    p_crossover: float = GAParams.p_crossover
    p_mutation: float = GAParams.p_mutation
    mutation_genes: int = GAParams.mutation_genes
    variance: float = GAParams.variance
    crossover_policy: CrossoverPolicy = GAParams.crossover_policy
    crossover_operator: CrossoverOperator = GAParams.crossover_operator
    chunks: int | None = None  # Ray tasks per generation; null = 2 per CPU

    def __post_init__(self) -> None:
        check_breeding(self)
        checks.integer("generations", self.generations, 1, 1_000_000)
        checks.optional_integer("chunks", self.chunks, 1, self.population)


@dataclass
class TrainersConfig:
    """The co-evolving trainer set (``trainers.*``)."""

    size: int | None = None  # null = table_size - 1; more are sampled table_size - 1 per deal
    start: TrainerStart = TrainerStart.baselines  # (the kernel's own default is random)
    hall_of_fame: int = GAParams.hall_of_fame  # past champions kept beside the trainers
    hall_every: int = GAParams.hall_every  # generations between two entries into the hall

    def __post_init__(self) -> None:
        if self.size is not None:
            check_trainer_size("size", self.size)
        check_hall(self)


TRAINER_PREFIXED = ("size", "start")
"""The ``trainers.*`` keys whose ``GAParams`` field is ``trainer_<key>``."""


@dataclass
class DealsConfig:
    """Training and held-out deal sets, generated through handgen when missing (``deals.*``)."""

    train: int = 200
    heldout: int = 2000
    train_seed: int = 1
    heldout_seed: int = 2
    equity_trials: int = 500
    shard_size: int = 50
    root: str = "data/deals"

    def __post_init__(self) -> None:
        checks.integer("train", self.train, 1, 10_000_000)
        checks.integer("heldout", self.heldout, 1, 10_000_000)
        checks.integer("train_seed", self.train_seed, 0)
        checks.integer("heldout_seed", self.heldout_seed, 0)
        if self.heldout_seed == self.train_seed:
            raise ConfigError(
                "heldout_seed",
                self.heldout_seed,
                "a seed other than train_seed (held-out deals must not be training deals)",
            )
        checks.integer("equity_trials", self.equity_trials, 1, 10_000_000)
        checks.integer("shard_size", self.shard_size, 1, 1_000_000)
        checks.storage_dir("root", self.root)


CHAMPION_ALIAS = "champion"
"""The alias retraining defends when ``registry.alias`` is null."""


@dataclass
class RegistryConfig:
    """Where the champion is registered in MLflow's model registry (``registry.*``).

    ``alias`` is the alias to move, asked explicitly. Null (the default) moves none: an evolve
    registers a version and points ``champion`` at it only when no version holds it yet (the
    first champion), so an ad-hoc run never bypasses retraining's guarded promotion. A name
    (``registry.alias=champion``) moves that alias to the new version; in retrain it names the
    alias the retraining defends and moves after its test (null: ``champion``)."""

    register: bool = True
    model_name: str = "sparring-holdem-champion"
    alias: str | None = None

    def __post_init__(self) -> None:
        checks.name("model_name", self.model_name)
        # MLflow's own rule, checked here: refused after the evolution, it would lose the run
        if self.alias is not None and (
            not re.fullmatch(r"[\w-]{1,255}", self.alias)
            or re.fullmatch(r"[vV]\d+|latest", self.alias, re.IGNORECASE)
        ):
            raise ConfigError(
                "alias", self.alias, "null or a name of letters, digits, _ and - (not latest, v<N>)"
            )

    @property
    def champion_alias(self) -> str:
        """The alias that names the champion: ``alias``, or ``champion`` when it is null."""
        return self.alias or CHAMPION_ALIAS


@dataclass
class EvolveConfig(ObjectiveConfig):
    """Evolve 10-player fixed-limit hold'em players against a co-evolving trainer set."""

    objective: str | None = "champion_bb100_vs_mixed"

    seed: int = GAParams.seed
    table_size: int = 10
    ga: GAConfig = field(default_factory=GAConfig)
    trainers: TrainersConfig = field(default_factory=TrainersConfig)
    deals: DealsConfig = field(default_factory=DealsConfig)
    preflop: PreflopConfig = field(default_factory=PreflopConfig)
    checkpoint_root: str = "data/checkpoints/evolve"  # <root>/<run-hash>/gen-XXXXX.npz
    resume: bool = False  # continue from the newest checkpoint of this config
    registry: RegistryConfig = field(default_factory=RegistryConfig)
    ray: RayConfig = field(default_factory=RayConfig)
    tracking: TrackingConfig = field(default_factory=TrackingConfig)
    storage: StorageConfig = field(default_factory=StorageConfig)

    def __post_init__(self) -> None:
        check_seed("seed", self.seed)
        checks.integer("table_size", self.table_size, MIN_SEATS, MAX_SEATS)
        if self.trainers.size is not None and self.trainers.size < self.table_size - 1:
            raise ConfigError(
                "trainers.size",
                self.trainers.size,
                f"null or an integer >= table_size - 1 = {self.table_size - 1}",
            )
        checks.storage_dir("checkpoint_root", self.checkpoint_root)

    @property
    def params(self) -> GAParams:
        """The algorithm's settings as the evolution loop takes them: each field of ``GAParams``
        from its key, ``ga.<name>``, ``trainers.<name>`` (``trainers.size`` and ``start`` for
        ``trainer_size`` and ``trainer_start``; a null size is ``table_size - 1``) or ``seed``."""
        keys: dict[str, Any] = {f.name: getattr(self.ga, f.name) for f in fields(self.ga)}
        for f in fields(self.trainers):
            kernel = f"trainer_{f.name}" if f.name in TRAINER_PREFIXED else f.name
            keys[kernel] = getattr(self.trainers, f.name)
        keys["trainer_size"] = self.trainers.size or self.table_size - 1
        keys["seed"] = self.seed
        return GAParams(**{f.name: keys[f.name] for f in fields(GAParams)})

    def deal_set(self, which: str) -> DealSetConfig:
        """The ``train`` or ``heldout`` deal set."""
        deals = self.deals
        return DealSetConfig(
            deals=getattr(deals, which),
            table_size=self.table_size,
            equity_trials=deals.equity_trials,
            seed=getattr(deals, f"{which}_seed"),
            shard_size=deals.shard_size,
            raise_factor=float(self.preflop.raise_factor),
            call_factor=float(self.preflop.call_factor),
            preflop_table=None,
        )

    @property
    def run_hash(self) -> str:
        """What defines the evolution (not its length: a run can be resumed and extended)."""
        return config_hash(
            {
                "ga": asdict(self.params),
                "train": asdict(self.deal_set("train")),
                "table_size": self.table_size,
            }
        )

    @property
    def checkpoint_dir(self) -> Location:
        return self.storage.locate(self.checkpoint_root) / self.run_hash


class PromotionTest(StrEnum):
    fixed = "fixed"  # every held-out deal, then the confidence interval's lower bound > 0
    sprt = "sprt"  # held-out deals in looks until the SPRT accepts H0 or H1


@dataclass
class PromotionSPRT:
    """``retrain.sprt.*``: H0 an edge of ``edge0`` bb/100 against H1 ``edge1``, with error
    rates ``alpha`` (promoting a challenger no better than edge0) and ``beta`` (keeping one
    edge1 better); deals are played ``look`` at a time, and no verdict comes before
    ``min_deals``."""

    edge0: float = 0.0
    edge1: float = 2.0
    alpha: float = 0.05
    beta: float = 0.05
    look: int = 25
    min_deals: int = 30

    def __post_init__(self) -> None:
        checks.number("edge0", self.edge0, -1e4, 1e4)
        checks.number("edge1", self.edge1, -1e4, 1e4)
        if not self.edge1 > self.edge0:
            raise ConfigError("edge1", self.edge1, f"a number above edge0={self.edge0:g}")
        checks.number("alpha", self.alpha, 0.0, 0.5, low_open=True, high_open=True)
        checks.number("beta", self.beta, 0.0, 0.5, low_open=True, high_open=True)
        checks.integer("look", self.look, 1)
        checks.integer("min_deals", self.min_deals, 2)

    def test(self, held_out: int) -> MeanSPRT:
        """The test over at most ``held_out`` deals."""
        return MeanSPRT(
            self.edge0, self.edge1, self.alpha, self.beta, max(held_out, 2), self.min_deals
        )


@dataclass
class RetrainSection:
    """``retrain.*``: which retraining this is and when the challenger is promoted."""

    id: str | None = None  # a date or submission id; null = today's date (UTC)
    seed_fraction: float = 0.25  # share of the first population seeded from the champion
    confidence: float = 0.95  # promote when the edge has this lower bound > 0
    test: PromotionTest = PromotionTest.fixed  # or sprt: stop as soon as the SPRT decides
    sprt: PromotionSPRT = field(default_factory=PromotionSPRT)
    challenger: str | None = None  # an agent spec to challenge with instead of evolving one
    checkpoint_root: str = "data/checkpoints/retrain"

    def __post_init__(self) -> None:
        if self.id is not None:  # it names checkpoints, claims, tags and filters
            self.id = checks.name("id", str(self.id))
        if self.challenger is not None:
            spec = parse(str(self.challenger), "challenger")
            if spec.kind != "champion" and not spec.text.startswith("poker@"):
                raise ConfigError(
                    "challenger",
                    self.challenger,
                    "a chromosome the registry can hold: champion@<alias|version> or "
                    "poker@<baseline> (other agents are rated in the league: league.agents)",
                )
        checks.probability("seed_fraction", self.seed_fraction)
        checks.number("confidence", self.confidence, 0.5, 0.9999)
        self.test = checks.choice("test", self.test, PromotionTest)
        checks.storage_dir("checkpoint_root", self.checkpoint_root)


@dataclass
class NotifyConfig:
    """``notify.*``: where the decision is POSTed as JSON when the run ends (null = nowhere)."""

    url: str | None = None
    timeout_s: float = 10.0

    def __post_init__(self) -> None:
        if self.url is not None and not self.url.startswith(("http://", "https://")):
            raise ConfigError("url", self.url, "an http:// or https:// URL, or null")
        checks.number("timeout_s", self.timeout_s, 0.0, 600.0, low_open=True)


@dataclass
class RetrainConfig(EvolveConfig):
    """Every evolve setting, plus the retraining's own (``retrain.*``, ``notify.*``)."""

    objective: str | None = "edge_bb100"

    retrain: RetrainSection = field(default_factory=RetrainSection)
    notify: NotifyConfig = field(default_factory=NotifyConfig)
    league: LeagueSection = field(default_factory=lambda: LeagueSection())  # rates the champion

    def __post_init__(self) -> None:
        super().__post_init__()
        sprt = self.retrain.sprt
        if self.retrain.test is PromotionTest.sprt and sprt.min_deals > self.deals.heldout:
            # the test reads nothing before min_deals: it could only end with no verdict
            raise ConfigError(
                "retrain.sprt.min_deals",
                sprt.min_deals,
                f"at most deals.heldout={self.deals.heldout} (the held-out deals it may play)",
            )


@dataclass
class LeagueSection:
    """``league.*``: who enters the league and how its results are kept."""

    registry: bool = True  # every version of registry.model_name enters
    baselines: list[str] = field(default_factory=lambda: list(BASELINES))
    runs: list[str] = field(default_factory=list)  # MLflow run ids whose champion/ enters
    agents: list[str] = field(default_factory=list)  # agent specs that play poker (arena.agents)
    bootstrap: int = 200  # resamples of the deals for the rating intervals
    cache_dir: str = "data/league/cache"  # one file per pair and deal set
    tag_versions: bool = True  # set each registry version's league rating as a tag
    limits: LimitsConfig = field(default_factory=LimitsConfig)  # for cmd: and acpc: agents
    withdraw_after: int = 3  # an agent's forfeits in a row before it forfeits the rest of a pair

    def __post_init__(self) -> None:
        unknown = [b for b in self.baselines if b not in BASELINES]
        if unknown:
            raise ConfigError("baselines", unknown, f"a list of {', '.join(BASELINES)}")
        for text in self.agents:
            spec = parse(str(text), "agents")
            if spec.games is not None and "poker" not in spec.games:
                raise ConfigError("agents", text, "an agent spec that plays poker")
        if len(set(self.agents)) != len(self.agents):
            raise ConfigError("agents", list(self.agents), "specs named once each")
        named_twice = sorted(set(self.agents) & set(self.baselines))
        if named_twice:  # an entrant's name is its rating's: one entrant a name
            raise ConfigError("agents", named_twice, "specs that are not also in league.baselines")
        checks.integer("withdraw_after", self.withdraw_after, 1)
        checks.integer("bootstrap", self.bootstrap, 0, 100_000)
        checks.storage_dir("cache_dir", self.cache_dir)
        self.limits.check_programs(list(self.agents))


@dataclass
class LeagueConfig(EvolveConfig):
    """The evolve settings that define the held-out deals and the registry, plus ``league.*``."""

    objective: str | None = None
    league: LeagueSection = field(default_factory=LeagueSection)

    def __post_init__(self) -> None:
        super().__post_init__()
        league = self.league
        if not (league.registry or league.baselines or league.runs or league.agents):
            raise ConfigError("league", "no entrants", "registry, baselines, runs or agents")
