"""``conf/evolve.yaml`` and ``conf/retrain.yaml``: the genetic algorithm and its retraining."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from sparring.config import checks
from sparring.config.common import ObjectiveConfig, RayConfig, StorageConfig, TrackingConfig
from sparring.config.handgen import PreflopConfig
from sparring.ga.evolution import GAParams, TrainerStart
from sparring.ga.operators import CrossoverOperator, CrossoverPolicy
from sparring.poker.bots import BASELINES
from sparring.poker.dealset import DealSetConfig
from sparring.poker.rules import MAX_SEATS, MIN_SEATS, N_GENES
from sparring.runtime.config import config_hash
from sparring.runtime.errors import ConfigError
from sparring.runtime.storage import Location, locate


@dataclass
class GAConfig:
    """The algorithm's operators and sizes (``ga.*``)."""

    population: int = 64
    generations: int = 200
    tournament: int = 3
    elitism: int = 2
    p_crossover: float = 0.7
    p_mutation: float = 0.3
    mutation_genes: int = 10  # used genes moved per mutation
    variance: float = 0.1  # thresholds move by up to variance x 200
    crossover_policy: CrossoverPolicy = CrossoverPolicy.cycle
    crossover_operator: CrossoverOperator = CrossoverOperator.half_individual  # when fixed
    chunks: int | None = None  # Ray tasks per generation; null = 2 per CPU

    def __post_init__(self) -> None:
        checks.integer("population", self.population, 4, 100_000)
        checks.integer("generations", self.generations, 1, 1_000_000)
        checks.integer("tournament", self.tournament, 1, self.population)
        checks.integer("elitism", self.elitism, 0, self.population - 1)
        checks.probability("p_crossover", self.p_crossover)
        checks.probability("p_mutation", self.p_mutation)
        checks.integer("mutation_genes", self.mutation_genes, 1, N_GENES)
        checks.number("variance", self.variance, 0, 1)
        checks.optional_integer("chunks", self.chunks, 1, self.population)


@dataclass
class TrainersConfig:
    """The co-evolving trainer set (``trainers.*``)."""

    size: int | None = None  # null = table_size - 1; more are sampled table_size - 1 per deal
    start: TrainerStart = TrainerStart.baselines
    hall_of_fame: int = 0  # past champions kept beside the trainers as opponents (0 = none)
    hall_every: int = 10  # generations between two entries into the hall of fame

    def __post_init__(self) -> None:
        checks.optional_integer("size", self.size, MIN_SEATS - 1, 10_000)
        checks.integer("hall_of_fame", self.hall_of_fame, 0, 1000)
        checks.integer("hall_every", self.hall_every, 1, 100_000)


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


@dataclass
class RegistryConfig:
    """Where the champion is registered in MLflow's model registry (``registry.*``)."""

    register: bool = True
    model_name: str = "sparring-holdem-champion"
    alias: str = "champion"

    def __post_init__(self) -> None:
        checks.path_text("model_name", self.model_name)
        checks.path_text("alias", self.alias)


@dataclass
class EvolveConfig(ObjectiveConfig):
    """Evolve 10-player fixed-limit hold'em players against a co-evolving trainer set."""

    objective: str | None = "champion_bb100_vs_mixed"

    seed: int = 0
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
        checks.integer("seed", self.seed, 0)
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
        """The algorithm's settings as the evolution loop takes them."""
        ga = self.ga
        return GAParams(
            population=ga.population,
            tournament=ga.tournament,
            elitism=ga.elitism,
            p_crossover=float(ga.p_crossover),
            p_mutation=float(ga.p_mutation),
            mutation_genes=ga.mutation_genes,
            variance=float(ga.variance),
            crossover_policy=ga.crossover_policy,
            crossover_operator=ga.crossover_operator,
            trainer_size=self.trainers.size or self.table_size - 1,
            trainer_start=self.trainers.start,
            hall_of_fame=self.trainers.hall_of_fame,
            hall_every=self.trainers.hall_every,
            seed=self.seed,
        )

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


@dataclass
class RetrainSection:
    """``retrain.*``: which retraining this is and when the challenger is promoted."""

    id: str | None = None  # a date or submission id; null = today's date (UTC)
    seed_fraction: float = 0.25  # share of the first population seeded from the champion
    confidence: float = 0.95  # promote when the edge has this lower bound > 0
    checkpoint_root: str = "data/checkpoints/retrain"

    def __post_init__(self) -> None:
        checks.probability("seed_fraction", self.seed_fraction)
        checks.number("confidence", self.confidence, 0.5, 0.9999)
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


@dataclass
class LeagueSection:
    """``league.*``: who enters the league and how its results are kept."""

    registry: bool = True  # every version of registry.model_name enters
    baselines: list[str] = field(default_factory=lambda: list(BASELINES))
    runs: list[str] = field(default_factory=list)  # MLflow run ids whose champion/ enters
    bootstrap: int = 200  # resamples of the deals for the rating intervals
    cache_dir: str = "data/league/cache"  # one file per pair and deal set
    tag_versions: bool = True  # set each registry version's league rating as a tag

    def __post_init__(self) -> None:
        unknown = [b for b in self.baselines if b not in BASELINES]
        if unknown:
            raise ConfigError("baselines", unknown, f"a list of {', '.join(BASELINES)}")
        checks.integer("bootstrap", self.bootstrap, 0, 100_000)
        checks.path_text("cache_dir", self.cache_dir)


@dataclass
class LeagueConfig(EvolveConfig):
    """The evolve settings that define the held-out deals and the registry, plus ``league.*``."""

    objective: str | None = None
    league: LeagueSection = field(default_factory=LeagueSection)

    def __post_init__(self) -> None:
        super().__post_init__()
        if not (self.league.registry or self.league.baselines or self.league.runs):
            raise ConfigError("league", "no entrants", "registry, baselines or runs")
