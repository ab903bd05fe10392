"""The arena: decisions per second of a seat, against the numba engine with chromosome-only
tables, in one run on one core.

    python benchmarks/arena.py [--quick]

- the baseline: heads-up hold'em in ``poker.engine.play_deals`` (every rotation of a deal set,
  two chromosomes), its hands per second times the decisions of a hand (counted with the
  reference engine on the same deals);
- an in-process Python agent seat: ``arena.play.play_game`` over the game protocol with a
  trivial agent (it always calls), so what is measured is the arena and the game adapter;
- Sparring's chromosome as an arena seat (``ChromosomeAgent``: a Monte Carlo equity per
  postflop decision);
- an outside JSON-lines program seat (``examples/agents/random_bot.py``) against in-process
  agents that call, heads up and at a 10-seat table: the program's decisions per second;
- every game with in-process random agents;
- FlagBots games per minute at a fast time control (``flagbots@20ms`` against itself) and at
  depth 2.

- hands per second at a 10-seat table, one seat an in-process agent, a JSON-lines program, or
  an ACPC program over TCP (``examples/agents/acpc_caller.py``, and ``tests/arena/acpc_bot.c``
  where a C compiler is found), the nine others in-process agents that call.

The sandbox's cost: every outside program is measured twice in the run, unsandboxed
(``sandbox=none``: before) and in bubblewrap (``sandbox=bwrap``: after; skipped, with one line
saying why, where it cannot run), and so is the time from starting ``random_bot.py`` to its
answer to the start message (the median of 20 starts of each, taken in turns; 6 with --quick).

Goals (issue #29): an in-process seat >= 50,000 decisions/s, a program seat >= 10,000 per core;
(issue #30) an ACPC seat at a 10-seat table >= 2,000 hands/s per core; (the sandbox's issue) a
sandboxed start costs <= 50 ms more than an unsandboxed one.
"""

from __future__ import annotations

import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import parser, report

from sparring import game_api
from sparring.arena.acpc_seat import AcpcProgramAgent
from sparring.arena.agents import RandomAgent
from sparring.arena.play import play_game
from sparring.arena.protocol import ProgramAgent
from sparring.flagbots.house import FlagBotsEngineAgent
from sparring.poker.bots import baseline
from sparring.poker.deal_generation import generate_deals
from sparring.poker.engine import play_deals
from sparring.poker.game import Holdem
from sparring.poker.house import ChromosomeAgent
from sparring.poker.table import play_hand_reference, seating
from sparring.runtime.programs import jail
from sparring.runtime.programs.program import Limits

ROOT = Path(__file__).resolve().parents[1]
BOT = [sys.executable, str(ROOT / "examples" / "agents" / "random_bot.py")]


class Caller:
    """An in-process agent that always calls (checks): every hand goes to the showdown."""

    def act(self, observation, legal):
        return "call" if "call" in legal else legal[0]


def engine_rate(deals: int) -> tuple[float, float]:
    """(hands/s, decisions per hand) of two chromosomes heads-up in the numba engine."""
    dealset, _ = generate_deals(0, deals, n_seats=2, equity_trials=200, seed=1)
    genes = baseline("tight_aggressive")[None].repeat(2, axis=0)
    genes[1] = baseline("calling_station")
    play_deals(dealset.equity[:1], dealset.strength[:1], genes)  # compiled before the timing
    best = 0.0
    for _ in range(3):
        start = time.perf_counter()
        result = play_deals(dealset.equity, dealset.strength, genes)
        best = max(best, result.hands / (time.perf_counter() - start))
    decisions, hands = 0, 0
    for d in range(min(deals, 500)):
        for rotation in range(4):
            seat_hole, seat_player = seating(2, rotation)
            trace = play_hand_reference(
                dealset.equity[d], dealset.strength[d], seat_hole, seat_player, genes
            )
            decisions += sum(bool(re.search(r"; \w+\)$", line)) for line in trace.lines)
            hands += 1
    return best, decisions / hands


class Counted:
    """An agent whose decisions are counted."""

    def __init__(self, agent) -> None:
        self.agent, self.decisions = agent, 0

    def start(self, info):
        hook = getattr(self.agent, "start", None)
        return hook(info) if callable(hook) else None

    def act(self, observation, legal):
        self.decisions += 1
        return self.agent.act(observation, legal)

    def end(self, returns):
        hook = getattr(self.agent, "end", None)
        return hook(returns) if callable(hook) else None

    def close(self):
        hook = getattr(self.agent, "close", None)
        return hook() if callable(hook) else None


def seat_rate(game, agents: list, seconds: float, counted: int | None = None) -> float:
    """Decisions per second of ``game`` played by ``agents`` for about ``seconds`` (each game
    from a new seed); with ``counted``, only that seat's decisions count."""
    seats = [Counted(a) for a in agents]
    play_game(game, seats, 10**6)  # warm: kernels compiled, programs started
    for seat in seats:
        seat.decisions = 0
    seed, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        play_game(game, seats, seed)
        seed += 1
    elapsed = time.perf_counter() - start
    for seat in seats:
        seat.close()
    done = [s.decisions for s in seats]
    return (sum(done) if counted is None else done[counted]) / elapsed


def hands_rate(game, agents: list, seconds: float) -> float:
    """Hands (games) per second of ``game`` played by ``agents`` for about ``seconds``."""
    play_game(game, agents, 10**6)  # warm: programs started
    played, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        record = play_game(game, agents, played)
        assert record.forfeit_seat is None, record.forfeit_detail
        played += 1
    elapsed = time.perf_counter() - start
    for agent in agents:
        hook = getattr(agent, "close", None)
        if callable(hook):
            hook()
    return played / elapsed


def start_ms(modes: tuple[str, ...], starts: int) -> dict[str, float]:
    """Median milliseconds, per sandbox mode, from starting ``random_bot.py`` to its answer to
    the start message; each start a new program, the modes taken in turns."""
    took: dict[str, list[float]] = {mode: [] for mode in modes}
    for seed in range(starts):
        for mode in modes:
            agent = ProgramAgent(BOT, Limits(sandbox=mode), "bot")
            began = time.perf_counter()
            agent.start({"game": "poker", "seat": 0, "players": 2, "seed": seed})
            took[mode].append((time.perf_counter() - began) * 1000)
            agent.close()
    return {mode: statistics.median(ms) for mode, ms in took.items()}


def ten_seat_rates(seconds: float, modes: tuple[str, ...]) -> dict[str, float]:
    """Hands/s at 10 seats with one seat of each kind (see the module docstring), every program
    under each sandbox mode of ``modes`` (keys "<kind> seat, sandbox=<mode>")."""
    table = Holdem(10)
    programs = {
        "JSON-lines program": (ProgramAgent, BOT),
        "ACPC program, Python": (
            AcpcProgramAgent,
            [sys.executable, str(ROOT / "examples" / "agents" / "acpc_caller.py")],
        ),
    }
    compiler = shutil.which("cc") or shutil.which("gcc")
    work = tempfile.mkdtemp(prefix="acpc-bench-")
    if compiler:
        binary = str(Path(work) / "acpc_bot")
        source = ROOT / "tests" / "arena" / "acpc_bot.c"
        subprocess.run([compiler, "-O2", "-o", binary, str(source)], check=True)
        programs["ACPC program, C"] = (AcpcProgramAgent, [binary])
    seats = {"in-process seat": Caller()}
    for kind, (agent, argv) in programs.items():
        for mode in modes:
            seats[f"{kind} seat, sandbox={mode}"] = agent(argv, Limits(sandbox=mode), "seat")
    rates = {k: hands_rate(table, [seat, *[Caller() for _ in range(9)]], seconds)
             for k, seat in seats.items()}  # fmt: skip
    shutil.rmtree(work, ignore_errors=True)
    return rates


def verdict(met: bool) -> str:
    return "**met**" if met else "**not met**"


def main() -> None:
    args = parser(__doc__).parse_args()
    seconds = 2.0 if args.quick else 8.0
    why = jail.problem()
    modes = ("none", "bwrap") if why is None else ("none",)
    if why is not None:
        print(f"bwrap cannot run here, so only sandbox=none is measured: {why}")
    n_starts = 6 if args.quick else 20
    starts = start_ms(modes, n_starts)
    hands_s, per_hand = engine_rate(2_000 if args.quick else 20_000)
    engine = hands_s * per_hand
    poker = Holdem(2)
    inproc = seat_rate(poker, [Caller(), Caller()], seconds)
    chromosomes = [ChromosomeAgent(baseline(b)) for b in ("tight_aggressive", "calling_station")]
    chromosome = seat_rate(poker, chromosomes, seconds)
    program = {
        (n, mode): seat_rate(
            Holdem(n),
            [ProgramAgent(BOT, Limits(sandbox=mode), "bot"), *[Caller() for _ in range(n - 1)]],
            seconds,
            counted=0,
        )
        for n in (2, 10)
        for mode in modes
    }
    games = {}
    for name in ("poker", "flagbots", "mus", "eleusis"):
        game = game_api.get(name)
        games[name] = seat_rate(game, [RandomAgent() for _ in range(game.num_players)], seconds / 2)
    ten = ten_seat_rates(seconds, modes)
    flagbots = game_api.get("flagbots")
    per_min = {}
    for label, make in (
        ("20ms", lambda: FlagBotsEngineAgent(depth=None, ms=20)),
        ("depth=2", lambda: FlagBotsEngineAgent(depth=2, ms=None)),
    ):
        agents = [make(), make()]
        play_game(flagbots, agents, 10**6)
        start, played = time.perf_counter(), 0
        while time.perf_counter() - start < seconds * 2:
            play_game(flagbots, agents, played)
            played += 1
        per_min[label] = played / (time.perf_counter() - start) * 60

    def against_none(rate: float, unsandboxed: float | None) -> str:
        return "" if unsandboxed is None else f"; {rate / unsandboxed:.3f}x sandbox=none"

    cost = starts.get("bwrap", starts["none"]) - starts["none"]
    rows = [
        *[(f"program start to its first answer: ms, sandbox={m}", ms, f"median of {n_starts}"
           + ("" if m == "none" else f"; +{cost:.1f} ms; goal <= +50: {verdict(cost <= 50)}"))
          for m, ms in starts.items()],
        ("engine: heads-up hands/s (chromosomes only)", hands_s, "baseline"),
        ("engine: decisions per hand", per_hand, "reference engine, same deals"),
        ("engine: decisions/s", engine, "1.00x"),
        ("arena in-process seat: decisions/s (poker)", inproc, f"{inproc / engine:.4f}x; goal 50k"),
        ("arena chromosome seat: decisions/s (poker)", chromosome, f"{chromosome / engine:.4f}x"),
        *[(f"arena program seat, {n} seats, sandbox={m}: decisions/s (poker)", r,
           f"{r / engine:.4f}x; goal 10k: {verdict(r >= 10_000)}"
           + against_none(r, program[n, "none"] if m == "bwrap" else None))
          for (n, m), r in program.items()],
        *[(f"arena random agents: decisions/s ({n})", r, "") for n, r in games.items()],
        *[(f"flagbots@{k}: games/min", v, "against itself") for k, v in per_min.items()],
        *[(f"10 seats, one {k}: hands/s", v, f"{v / ten['in-process seat']:.3f}x in-process"
           + (f"; goal 2,000: {verdict(v >= 2_000)}" if k.startswith("ACPC") else "")
           + against_none(v, ten[k.removesuffix("bwrap") + "none"]
                          if k.endswith("bwrap") else None))
          for k, v in ten.items()],
    ]  # fmt: skip
    report(
        "arena",
        rows,
        {
            "engine_decisions_per_s": engine,
            "in_process_decisions_per_s": inproc,
            "chromosome_decisions_per_s": chromosome,
            "start_ms": starts,
            "program_decisions_per_s": {f"{n} seats, {m}": r for (n, m), r in program.items()},
            "random_decisions_per_s": games,
            "flagbots_games_per_min": per_min,
            "ten_seat_hands_per_s": ten,
        },
    )


if __name__ == "__main__":
    main()
