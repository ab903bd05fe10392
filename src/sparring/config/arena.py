"""``conf/arena.yaml``: a contest of agents (any spec) in one game."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum

from sparring.arena.agents import parse
from sparring.arena.sprt import SPRT
from sparring.config import checks
from sparring.config.common import StorageConfig
from sparring.game_api import refusal, registered, trait
from sparring.runtime.errors import ConfigError
from sparring.runtime.programs.program import Limits
from sparring.runtime.ray.settings import RayConfig
from sparring.runtime.tracking.settings import TrackingConfig

MAX_UNITS = 100_000  # units per pair (SPRT: in all): ~10^6 games, a few hundred MB of results
PROGRAM_KINDS = ("cmd", "acpc")  # agents that are outside programs: sandboxed


class Kind(StrEnum):
    gauntlet = "gauntlet"  # ``agent`` against every one of ``field``
    round_robin = "round_robin"  # every pair of ``field``
    sprt = "sprt"  # ``agent`` against ``field[0]`` until the SPRT decides


@dataclass
class LimitsConfig:
    """``limits.*``: what an outside program may use
    (``sparring.runtime.programs.program.Limits``)."""

    move_s: float = 2.0  # the original FlagBots rule: 2 s a move
    start_s: float = 10.0
    game_s: float | None = None
    memory_mb: int = 100  # the original FlagBots rule: 100 MB
    cpu_s: float = 600.0
    line_bytes: int = 65536
    stderr_bytes: int = 65536
    network: bool = False
    same_core: bool = True  # a program runs on its referee's core (twice the answers per second)
    sandbox: str | None = None  # bwrap, or none (your rights); null: $SPARRING_SANDBOX or bwrap
    read_only: list[str] = dataclasses.field(default_factory=list)  # more paths programs read
    file_mb: int = 64
    disk_mb: int = 64  # a program's private home, and its /tmp, each
    processes: int = 64
    open_files: int = 256

    def limits(self) -> Limits:
        try:
            return Limits(**{**vars(self), "read_only": tuple(self.read_only)})
        except ValueError as exc:
            raise ConfigError.text(f"limits.{exc}") from None

    def check_programs(self, entrants: list[str]) -> None:
        """Where an entrant is an outside program (``cmd:``, ``acpc:``): the sandbox it needs
        can run here, or the user opted out (one line before any game, exit 2)."""
        limits = self.limits()
        if any(parse(str(e)).kind in PROGRAM_KINDS for e in entrants):
            try:
                limits.check_sandbox()
            except ValueError as exc:
                raise ConfigError.text(f"limits.{exc}") from None


@dataclass
class SPRTConfig:
    """``sprt.*``: H0 elo0 against H1 elo1 with error rates alpha and beta."""

    elo0: float = 0.0
    elo1: float = 50.0
    alpha: float = 0.05
    beta: float = 0.05
    max_units: int = 400

    def test(self) -> SPRT:
        return SPRT(self.elo0, self.elo1, self.alpha, self.beta, self.max_units)


@dataclass
class EleusisArenaConfig:
    """``eleusis.*`` (game=eleusis): the deck nature draws from, the starting harma and the cap.

    The default deck is a Zipf law over the cards: a learning scientist finds its likely cards
    in a few hundred guesses and a random one never does, so a contest tells them apart (on the
    registered game's Dirichlet deck nearly every game, learner or not, ran into the cap)."""

    deck: str = "zipf"  # a deck family of sparring.eleusis.decks, with its parameters
    harma: int = 100  # the starting harma (the spec's)
    cap: int = 2000  # guesses before the game is a DNF scoring -cap (each guess is a message)

    def check(self) -> None:
        from sparring.eleusis.decks import parse_deck
        from sparring.eleusis.limits import MAX_CAP, MAX_H0

        try:
            parse_deck(self.deck)
        except ValueError as exc:
            raise ConfigError("eleusis.deck", self.deck, f"a deck ({exc})") from None
        checks.integer("eleusis.harma", self.harma, 1, MAX_H0)
        checks.integer("eleusis.cap", self.cap, 1, MAX_CAP)

    @property
    def variant(self) -> str:
        """The game these settings make, as ``contest.table`` reads it."""
        return f"deck={self.deck};harma={self.harma};cap={self.cap}"


GAME_SETTINGS = (EleusisArenaConfig,)  # a game's own section, named after the game


@dataclass
class ArenaConfig:
    """A gauntlet, a round robin or an SPRT head-to-head of agent specs in ``game``."""

    game: str = "flagbots"
    seats: int | None = None  # the game's table size (poker: 2..10; null = its own): A rotates
    kind: Kind = Kind.gauntlet
    agent: str | None = "random"  # the agent under test (gauntlet, sprt; not a round robin)
    field: list[str] = dataclasses.field(default_factory=lambda: ["first"])
    units: int = 10  # units per pair (sprt: per wave, up to sprt.max_units)
    block: int = 5  # units per Ray task
    seed: int = 0
    opening_plies: int | None = None  # null = the game's (FlagBots: 2, no chance there; else 0)
    withdraw_after: int = 3  # faults in a row before an entrant is withdrawn
    output_dir: str = "data/arena"
    model_name: str = "sparring-holdem-champion"  # the registered model champion@ specs name
    limits: LimitsConfig = dataclasses.field(default_factory=LimitsConfig)
    sprt: SPRTConfig = dataclasses.field(default_factory=SPRTConfig)
    eleusis: EleusisArenaConfig = dataclasses.field(default_factory=EleusisArenaConfig)
    ray: RayConfig = dataclasses.field(default_factory=RayConfig)
    tracking: TrackingConfig = dataclasses.field(default_factory=TrackingConfig)
    storage: StorageConfig = dataclasses.field(default_factory=StorageConfig)

    def __post_init__(self) -> None:
        games = registered()  # the built-ins and installed plugins (imports no game)
        # a family's game (openspiel:<game>) is made now to be checked: pyspiel, for that name
        refused = refusal(self.game)
        if refused:
            raise ConfigError("game", self.game, refused)
        if self.seats is not None:
            sizes = trait(self.game, "table_sizes")  # (a game's light declaration: no engine)
            if not sizes:
                sized = [g for g in games if trait(g, "table_sizes")]
                only = f"only {', '.join(sized)} {'has' if len(sized) == 1 else 'have'}"
                raise ConfigError("seats", self.seats, f"null: {only if sized else 'no game has'}"
                                  f" a table size (game={self.game})")  # fmt: skip
            checks.integer("seats", self.seats, sizes[0], sizes[-1])
        if self.kind is not Kind.round_robin and self.agent is None:
            raise ConfigError("agent", None, f"the agent under test (kind={self.kind.value})")
        if not self.field:
            raise ConfigError("field", self.field, "a non-empty list of agent specs")
        if self.kind is Kind.round_robin and len(self.field) < 2:
            raise ConfigError("field", self.field, "two or more agent specs for a round robin")
        for i, text in enumerate(self.entrants):
            first = i == 0 and self.under_test
            key = "agent" if first else f"field[{i - bool(self.under_test)}]"
            spec = parse(str(text), key)
            unfit = spec.unfit(self.game)  # another game's agent, or a bot the game does not fit
            if unfit:
                raise ConfigError(key, text, unfit)
        if len(set(self.entrants)) != len(self.entrants):
            raise ConfigError("field", self.field, "distinct agents (one of them is named twice)")
        # a contest lays out its blocks and keeps its units' results in memory: bounded up front
        checks.integer("units", self.units, 1, MAX_UNITS)
        checks.integer("block", self.block, 1, MAX_UNITS)
        checks.integer("sprt.max_units", self.sprt.max_units, 1, MAX_UNITS)
        checks.integer("seed", self.seed, 0)
        checks.integer("withdraw_after", self.withdraw_after, 1)
        checks.optional_integer("opening_plies", self.opening_plies, 0)
        checks.storage_dir("output_dir", self.output_dir)
        checks.name("model_name", self.model_name)  # it goes into a registry filter
        self.limits.check_programs(self.entrants)
        self.sprt.test()
        self.eleusis.check()

    @property
    def variant(self) -> str:
        """The game's settings beyond its name, "" for none: those of the section named after
        the game, where this schema has one (``eleusis.*``; the game reads them back,
        ``with_variant``)."""
        section = getattr(self, self.game, None)
        return section.variant if isinstance(section, GAME_SETTINGS) else ""

    @property
    def under_test(self) -> str | None:
        """The agent under test: ``agent``, except in a round robin (only ``field`` plays)."""
        return None if self.kind is Kind.round_robin else self.agent

    @property
    def entrants(self) -> list[str]:
        """Every agent of the contest, the one under test first."""
        return ([self.under_test] if self.under_test else []) + [str(f) for f in self.field]

    @property
    def plies(self) -> int:
        """Random plies before a unit's games: ``opening_plies``, or the game's own default
        (``opening_plies`` of the game: FlagBots has no chance, so its start is varied)."""
        if self.opening_plies is not None:
            return self.opening_plies
        return int(trait(self.game, "opening_plies"))

    def pairs(self) -> list[tuple[str, str]]:
        """(A, B) of every pairing: A is the agent under test, or the earlier of the field."""
        if self.kind is Kind.round_robin:
            f = [str(x) for x in self.field]
            return [(f[i], f[j]) for i in range(len(f)) for j in range(i + 1, len(f))]
        if self.kind is Kind.sprt:
            return [(str(self.agent), str(self.field[0]))]
        return [(str(self.agent), str(f)) for f in self.field]
