"""``sparring``: small interactive tools.

    sparring equity AsKs --board "Ah 7c 2d" --opponents 9
    sparring equity 7h7d --opponents 3 --trials 1000000 --seed 4
    sparring poker replay --deals data/deals/<hash> --deal 3 --rotation 0
    sparring eleusis referee --deck spike:alpha=0.5 --seed 1 -- sparring eleusis scientist
    sparring play flagbots --side south --time 1.0
    sparring play mus --hands 3
    sparring mus simulate --matches 10 --bluff 0.8
    sparring play mus --hands 3 --store player_models.db --player ana
    sparring mus profile --store player_models.db --player ana
    sparring compare evolve --metric champion_bb100

Errors in the input end the command with a one-line message and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

EXIT_USAGE = 2


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit status 2."""


def _cmd_equity(args: argparse.Namespace) -> int:
    from sparring.poker.cards import format_cards
    from sparring.poker.equity import MAX_OPPONENTS, equity

    if not 1 <= args.opponents <= MAX_OPPONENTS:
        raise UsageError(f"--opponents {args.opponents}: must be in 1..{MAX_OPPONENTS}")
    if args.trials <= 0:
        raise UsageError(f"--trials {args.trials}: must be a positive integer")
    method = "exact" if args.exact else "auto"
    try:
        r = equity(args.hero, args.board, args.opponents, args.trials, args.seed, method=method)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    from sparring.poker.cards import parse_cards

    board = format_cards(parse_cards(args.board)) if args.board.strip() else "-"
    how = "exact enumeration" if r.exact else f"Monte Carlo, seed {args.seed}"
    print(
        f"hero {format_cards(parse_cards(args.hero))}  board {board}  "
        f"vs {args.opponents} random hand{'s' if args.opponents > 1 else ''}"
    )
    print(f"equity  {r.equity:.4f}  ± {r.stderr:.4f} (1 s.e.)")
    print(f"win     {r.win:.4f}")
    print(f"tie     {r.tie:.4f}")
    print(f"outcomes {r.trials:,} ({how})")
    return 0


def _cmd_poker_replay(args: argparse.Namespace) -> int:
    import numpy as np

    from sparring.pipelines.handgen import load_deal_set
    from sparring.poker.bots import BASELINES, baseline, baseline_table
    from sparring.poker.cards import format_cards
    from sparring.poker.table import play_hand_reference, seating
    from sparring.runtime.datasets import DatasetError

    try:
        deals = load_deal_set(args.deals)
    except DatasetError as exc:
        raise UsageError(str(exc)) from exc
    hits = np.flatnonzero(deals.deal_id == args.deal)
    if not hits.size:
        raise UsageError(
            f"--deal {args.deal}: no such deal; "
            f"ids run {deals.deal_id.min()}..{deals.deal_id.max()}"
        )
    n = deals.n_seats
    if not 0 <= args.rotation < n * n:
        raise UsageError(f"--rotation {args.rotation}: must be in 0..{n * n - 1} for {n} seats")
    for name, value in (("--hero", args.hero), ("--table", args.table)):
        if value not in BASELINES or (name == "--hero" and value == "mixed"):
            raise UsageError(f"{name} {value}: choose from {', '.join(BASELINES)}")
    players = np.concatenate([baseline(args.hero)[None], baseline_table(args.table, n - 1)])
    i = int(hits[0])
    seat_hole, seat_player = seating(n, args.rotation)
    trace = play_hand_reference(
        deals.equity[i],
        deals.strength[i],
        seat_hole,
        seat_player,
        players,
        board=deals.board[i],
        holes=deals.holes[i],
    )
    print(
        f"deal {args.deal}, rotation {args.rotation}: board {format_cards(deals.board[i])}; "
        f"player 0 = {args.hero}, players 1..{n - 1} = {args.table}"
    )
    print("\n".join(trace.lines))
    nets = {seat_player[s]: trace.net_by_seat[s] for s in range(n)}
    print("net chips by player: " + ", ".join(f"{p}: {nets[p] + 0.0:+g}" for p in range(n)))
    return 0


def _deck(spec: str, seed: int):
    from sparring.eleusis.decks import make_deck

    try:
        return make_deck(spec, seed)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc


def _cmd_eleusis_referee(args: argparse.Namespace) -> int:
    from sparring.eleusis.env import EleusisGame
    from sparring.eleusis.protocol import run_referee

    command = list(args.program)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        raise UsageError("give the scientist program after --, e.g. -- sparring eleusis scientist")
    if args.harma < 1 or args.cap < 1:
        raise UsageError("--harma and --cap must be at least 1")
    game = EleusisGame(_deck(args.deck, args.seed), args.seed, args.harma, args.cap)
    result = run_referee(game, command)
    if result.status == "invalid":
        print(f"invalid game after {result.guesses} guesses: {result.message}")
        return 3
    word = "finished" if result.status == "finished" else "did not finish (cap reached)"
    print(f"{word}: {result.guesses} guesses, harma {result.harma}")
    return 0


def _cmd_eleusis_scientist(args: argparse.Namespace) -> int:
    from sparring.eleusis.protocol import run_scientist
    from sparring.eleusis.scientists import NAMES

    if args.name not in NAMES:
        raise UsageError(f"--name {args.name}: choose from {', '.join(NAMES)}")
    p_true = _deck(args.deck, args.seed) if args.deck else None
    if args.name in ("oracle", "optimal") and p_true is None:
        raise UsageError(f"the {args.name} knows the deck: give --deck (and the game's --seed)")
    if args.name == "informed":
        from sparring.eleusis.informed import hypotheses

        if not args.deck:
            raise UsageError("the informed reference knows the deck's family: give --deck")
        try:
            hypotheses(args.deck)
        except ValueError as exc:
            raise UsageError(str(exc)) from exc
    return run_scientist(args.name, args.seed, args.harma, p_true, family=args.deck)


def _cmd_play_flagbots(args: argparse.Namespace) -> int:
    from sparring.search.engine import Engine, searcher
    from sparring.search.flagbots import FlagBotsConfig
    from sparring.search.game import IllegalMoveError, Position

    if args.side not in ("south", "north"):
        raise UsageError(f"--side {args.side}: choose south or north")
    try:
        cfg = FlagBotsConfig.wall_row() if args.map == "wall_row" else FlagBotsConfig()
        engine = Engine(cfg, searcher(args.searcher, time_s=args.time))
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    pos = Position(cfg)
    human = 0 if args.side == "south" else 1
    print(
        "FlagBots: you are " + args.side.capitalize() + " (S moves first). Reach the enemy "
        "flag (F = South's, f = North's). Moves: c2-d3, or x c2 to self-destruct; quit ends."
    )
    while not pos.is_terminal():
        print(pos.render())
        if pos.current_player() == human:
            try:
                text = input(f"ply {pos.ply + 1}, your move> ")
            except EOFError:
                print("\nbye")
                return 0
            if text.strip().lower() in ("quit", "exit", "q"):
                return 0
            try:
                pos.apply_action(pos.parse_move(text))
            except IllegalMoveError as exc:
                print(f"illegal: {exc}")
            continue
        result = engine.search(pos.st, depth=args.depth, time_s=None if args.depth else -1.0)
        print(
            f"engine plays {pos.move_text(result.move)} (depth {result.depth}, "
            f"{result.nodes:,} nodes, score {result.score:+d})"
        )
        pos.apply_action(result.move)
    print(pos.render())
    south, _ = pos.returns()
    verdict = "draw" if south == 0 else ("South wins" if south > 0 else "North wins")
    print(f"game over after {pos.ply} plies: {verdict} ({pos.reason})")
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    from sparring.pipelines.compare import compare
    from sparring.runtime.config import ConfigError

    try:
        compare(
            args.tracking_uri,
            args.experiment,
            args.metric,
            args.metrics,
            args.filter,
            args.max_runs,
            args.output_dir,
        )
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc
    return 0


def _cmd_results(args: argparse.Namespace) -> int:
    from sparring.pipelines.results import results

    results(args.tracking_uri)
    return 0


def _cmd_play_mus(args: argparse.Namespace) -> int:
    from sparring.mus.terminal import play

    if args.hands < 1:
        raise UsageError("--hands must be at least 1")
    return play(
        input, print, seed=args.seed, hands=args.hands, store=args.store, player=args.player
    )


def _cmd_mus_profile(args: argparse.Namespace) -> int:
    from pathlib import Path

    from sparring.modeling.store import open_store, profile_view

    if not Path(args.store).is_file():
        raise UsageError(f"--store {args.store}: no such file (play with --store to create it)")
    conn = open_store(args.store)
    try:
        view = profile_view(conn, args.player)
    finally:
        conn.close()
    if view.games == 0 and all(m.n == 0 for m in view.metrics):
        raise UsageError(f"--player {args.player}: not in {args.store}")
    print("\n".join(view.lines()))
    return 0


def _cmd_mus_simulate(args: argparse.Namespace) -> int:
    import time

    from sparring.mus.game import MusGame
    from sparring.mus.log import LOG_SPEC, play_match, to_arrow
    from sparring.mus.players import SyntheticPlayer
    from sparring.runtime.config import config_hash
    from sparring.runtime.datasets import write_table

    if args.matches < 1:
        raise UsageError("--matches must be at least 1")
    start, records, hands, wins = time.perf_counter(), [], 0, [0, 0]
    for m in range(args.matches):
        players = [
            SyntheticPlayer.with_rates(
                seed=args.seed * 1000 + 4 * m + i, bluff_frequency=args.bluff if i % 2 else 0.2
            )
            for i in range(4)
        ]
        state, recs = play_match(MusGame(), players, seed=args.seed * 1000 + m, match_id=m)
        records += recs
        hands += state.hand_number
        wins[state.match_winner] += 1
    wall = time.perf_counter() - start
    path = write_table(
        to_arrow(records),
        args.output,
        LOG_SPEC,
        config_hash=config_hash(vars(args) | {"func": None}),
        seed=args.seed,
    )
    print(
        f"{args.matches} matches, {hands} hands, {len(records)} betting decisions in "
        f"{wall:.1f} s ({hands / wall:,.0f} hands/s); matches won: team A {wins[0]}, "
        f"team B {wins[1]} (bluff rate {args.bluff})"
    )
    print(f"decision log: {path.resolve()}")
    return 0


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sparring",
        description="Sparring: tools for training and evaluating game-playing agents.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    eq = sub.add_parser(
        "equity",
        help="hold'em equity of a hand against random opponents",
        description="Equity of a hold'em hand against random opponent hands: exact when there "
        "are at most --trials outcomes, else Monte Carlo. A k-way tie counts 1/k.",
    )
    eq.add_argument("hero", help='two hole cards, e.g. "AsKs" (ranks 23456789TJQKA, suits cdhs)')
    eq.add_argument("--board", default="", help='0 to 5 board cards, e.g. "Ah 7c 2d"')
    eq.add_argument("--opponents", type=int, default=1, help="random opponents, 1..22 (default 1)")
    eq.add_argument("--trials", type=int, default=200_000, help="Monte Carlo outcomes (200000)")
    eq.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    eq.add_argument("--exact", action="store_true", help="enumerate every outcome")
    eq.set_defaults(func=_cmd_equity)

    poker = sub.add_parser("poker", help="poker tools (replay a hand of a deal set)")
    poker_sub = poker.add_subparsers(dest="poker_command", metavar="TOOL")
    poker_sub.required = True
    rp = poker_sub.add_parser(
        "replay",
        help="print one hand of a deal set action by action",
        description="Replay one rotation of one deal with baseline players: every action with "
        "the equity or gene behind it, the pot, and the showdown.",
    )
    rp.add_argument("--deals", required=True, help="a deal-set directory (data/deals/<hash>)")
    rp.add_argument("--deal", type=int, default=0, help="deal id (default 0)")
    rp.add_argument("--rotation", type=int, default=0, help="rotation 0..N*N-1 (default 0)")
    rp.add_argument("--hero", default="tight_aggressive", help="player 0's baseline")
    rp.add_argument("--table", default="mixed", help="baseline of players 1..N-1 (or mixed)")
    rp.set_defaults(func=_cmd_poker_replay)

    play = sub.add_parser("play", help="play a game in the terminal")
    play_sub = play.add_subparsers(dest="game", metavar="GAME")
    play_sub.required = True
    fb = play_sub.add_parser(
        "flagbots",
        help="FlagBots against the alpha-beta engine",
        description="Play FlagBots against the engine: type moves like c2-d3 or x c2 "
        "(self-destruct); illegal moves are refused with the reason.",
    )
    fb.add_argument("--side", default="south", help="south (moves first) or north")
    fb.add_argument("--searcher", default="full", help="engine configuration (default full)")
    fb.add_argument("--time", type=float, default=1.0, help="engine seconds per move (1.0)")
    fb.add_argument("--depth", type=int, default=None, help="fixed engine depth instead")
    fb.add_argument("--map", default="default", help="default or wall_row")
    fb.set_defaults(func=_cmd_play_flagbots)
    mus = play_sub.add_parser(
        "mus",
        help="Mus against three bots",
        description="Play hands of Mus at seat 0 with seat 2 as your partner (bots: synthetic "
        "players). Type mus, no mus, discard 1 3, paso, envido 2, subir 2, quiero, no quiero, "
        "ordago; illegal input is refused with the reason.",
    )
    mus.add_argument("--seed", type=int, default=0, help="deal seed")
    mus.add_argument("--hands", type=int, default=1, help="hands to play (default 1)")
    mus.add_argument(
        "--store",
        default=None,
        help="a player-model SQLite file: the opponents become ModelingBots that learn your "
        "play across games (created if missing)",
    )
    mus.add_argument("--player", default="you", help="your name in the store (default: you)")
    mus.set_defaults(func=_cmd_play_mus)

    cmp_ = sub.add_parser(
        "compare",
        help="compare the runs of an MLflow experiment",
        description="Rank an experiment's runs by a metric; show the params that differ.",
    )
    cmp_.add_argument("experiment", help="MLflow experiment (e.g. evolve, equity)")
    cmp_.add_argument("--metric", required=True, help="rank by this metric (descending)")
    cmp_.add_argument("--metrics", nargs="*", default=[], help="more metrics to show")
    cmp_.add_argument("--filter", default="", help="MLflow filter, e.g. \"params.seed = '1'\"")
    cmp_.add_argument("--max-runs", type=int, default=20)
    cmp_.add_argument("--tracking-uri", default="sqlite:///mlflow.db")
    cmp_.add_argument("--output-dir", default="data/compare", help="where the plot goes")
    cmp_.set_defaults(func=_cmd_compare)

    res = sub.add_parser(
        "results",
        help="the latest run of every pipeline with its headline numbers",
        description="One line per pipeline: its latest finished MLflow run and headlines.",
    )
    res.add_argument("--tracking-uri", default="sqlite:///mlflow.db")
    res.set_defaults(func=_cmd_results)

    mus_cmd = sub.add_parser("mus", help="Mus tools (simulate matches, decision log)")
    mus_sub = mus_cmd.add_subparsers(dest="mus_command", metavar="TOOL")
    mus_sub.required = True
    sim = mus_sub.add_parser(
        "simulate",
        help="synthetic players play matches; the decision log goes to Parquet",
        description="Team A (seats 0, 2) bluffs at 0.2, team B (seats 1, 3) at --bluff.",
    )
    sim.add_argument("--matches", type=int, default=10)
    sim.add_argument("--bluff", type=float, default=0.8, help="team B's bluff frequency")
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--output", default="data/mus_decisions.parquet")
    sim.set_defaults(func=_cmd_mus_simulate)
    prof = mus_sub.add_parser(
        "profile",
        help="what the player-model store knows about a player (the statistics screen)",
        description="Games, hands and every metric's estimate with its 90%% interval.",
    )
    prof.add_argument("--store", required=True, help="the player-model SQLite file")
    prof.add_argument("--player", required=True, help="the player's name in the store")
    prof.set_defaults(func=_cmd_mus_profile)

    el = sub.add_parser("eleusis", help="Probabilistic Eleusis: referee and scientists")
    el_sub = el.add_subparsers(dest="eleusis_command", metavar="TOOL")
    el_sub.required = True
    ref = el_sub.add_parser(
        "referee",
        help="run a scientist program over stdin/stdout for one game",
        description="Referee one game: the program writes guesses '<suit> <number>' (suits "
        "CDHS, numbers 1..13) and reads '<suit> <number> <0|1> <0|1>'. Exit status 0 when the "
        "game finished or hit the cap, 3 when the program broke the protocol.",
    )
    ref.add_argument("--deck", required=True, help="family[:k=v,...], e.g. spike:alpha=0.5")
    ref.add_argument("--seed", type=int, default=0, help="game seed (deck instance and draws)")
    ref.add_argument("--harma", type=int, default=100, help="starting harma (default 100)")
    ref.add_argument("--cap", type=int, default=1_000_000, help="guess cap (default 1000000)")
    ref.add_argument("program", nargs=argparse.REMAINDER, help="-- COMMAND [ARGS...]")
    ref.set_defaults(func=_cmd_eleusis_referee)
    sci = el_sub.add_parser(
        "scientist",
        help="one of our scientists speaking the line protocol",
        description="Write guesses to stdout, read feedback from stdin until it closes.",
    )
    sci.add_argument(
        "--name",
        default="em_greedy",
        help="frequency, greedy_frequency, beta_thompson, dirichlet_gibbs, em_greedy, kl_ucb; "
        "the references oracle, optimal (told the deck) and informed (told its family)",
    )
    sci.add_argument("--seed", type=int, default=0, help="seed of its random choices")
    sci.add_argument("--harma", type=int, default=100, help="starting harma (for optimal)")
    sci.add_argument(
        "--deck", default=None, help="the deck (oracle, optimal) or its family (informed) only"
    )
    sci.set_defaults(func=_cmd_eleusis_scientist)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except UsageError as exc:
        print(f"sparring {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
