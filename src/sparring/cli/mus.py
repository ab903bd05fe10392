"""``sparring play mus``, ``sparring mus simulate`` and ``sparring mus profile``."""

from __future__ import annotations

import argparse

from sparring.cli.common import (
    UsageError,
    group,
    integer,
    name,
    open_player_store,
    output_file,
    probability,
    seed,
    store_file,
)


def register(top: argparse._SubParsersAction, groups: dict) -> None:
    mus = groups["play"].add_parser(
        "mus",
        help="Mus against three bots",
        description="Play hands of Mus at seat 0 with seat 2 as your partner (bots: synthetic "
        "players). Type mus, no mus, discard 1 3, paso, envido 2, subir 2, quiero, no quiero, "
        "ordago; illegal input is refused with the reason.",
    )
    mus.add_argument("--seed", type=seed, default=0, help="deal seed")
    mus.add_argument("--hands", type=integer(1), default=1, help="hands to play (default 1)")
    mus.add_argument(
        "--store",
        type=store_file,
        default=None,
        help="a player-model SQLite file: the opponents become ModelingBots that learn your "
        "play across games (created if missing)",
    )
    mus.add_argument(
        "--player", default="you", type=name, help="your name in the store (default: you)"
    )
    mus.set_defaults(func=play)

    tools = group(top, groups, "mus", "Mus tools (simulate matches, the player-model profile)")
    sim = tools.add_parser(
        "simulate",
        help="synthetic players play matches; the decision log goes to Parquet",
        description="Team A (seats 0, 2) bluffs at 0.2, team B (seats 1, 3) at --bluff. The "
        "matches run on the compiled Mus engine (compiled on first use: about half a minute).",
    )
    sim.add_argument("--matches", type=integer(1), default=10, help="matches (default 10)")
    sim.add_argument(
        "--bluff", type=probability, default=0.8, help="team B's bluff frequency, in [0, 1]"
    )
    sim.add_argument("--seed", type=seed, default=0, help="random seed >= 0 (default 0)")
    sim.add_argument("--output", type=output_file, default="data/mus_decisions.parquet")
    sim.set_defaults(func=simulate)
    prof = tools.add_parser(
        "profile",
        help="what the player-model store knows about a player (the statistics screen)",
        description="Games, hands and every metric's estimate with its 90% interval.",
    )
    prof.add_argument(
        "--store", required=True, type=store_file, help="the player-model SQLite file"
    )
    prof.add_argument("--player", required=True, type=name, help="the player's name in the store")
    prof.set_defaults(func=profile)


def play(args: argparse.Namespace) -> int:
    """Play hands of Mus in the terminal."""
    from sparring.modeling.terminal import play

    if args.store is not None:  # refuse a newer or damaged store before the first hand
        open_player_store(args.store).close()
    return play(
        input,
        print,
        seed=args.seed,
        hands=args.hands,
        store=None if args.store is None else str(args.store),
        player=args.player,
    )


def profile(args: argparse.Namespace) -> int:
    """Print what the store knows about a player."""
    from sparring.modeling.store import profile_view

    if not args.store.is_file():
        raise UsageError(f"--store {args.store}: no such file (play with --store to create it)")
    conn = open_player_store(args.store)
    try:
        view = profile_view(conn, args.player)
    finally:
        conn.close()
    if view.games == 0 and all(m.n == 0 for m in view.metrics):
        raise UsageError(f"--player {args.player}: not in {args.store}")
    print("\n".join(view.lines()))
    return 0


def simulate(args: argparse.Namespace) -> int:
    """Play synthetic matches and write the decision log."""
    import time

    from sparring.mus.log import LOG_SPEC
    from sparring.mus.players import SyntheticPlayer
    from sparring.mus.synthetic_play import play_synthetic_match, to_arrow, warm_up
    from sparring.runtime.config import config_hash
    from sparring.runtime.storage.datasets import write_table

    loading = warm_up()
    start, played, hands, wins = time.perf_counter(), [], 0, [0, 0]
    for m in range(args.matches):
        players = [
            SyntheticPlayer.with_rates(
                seed=args.seed * 1000 + 4 * m + i, bluff_frequency=args.bluff if i % 2 else 0.2
            )
            for i in range(4)
        ]
        match = play_synthetic_match(players, seed=args.seed * 1000 + m, match_id=m)
        played.append(match)
        hands += match.hand_number
        wins[match.match_winner] += 1
    log = to_arrow(played)
    wall = time.perf_counter() - start
    path = write_table(
        log,
        args.output,
        LOG_SPEC,
        config_hash=config_hash({"matches": args.matches, "bluff": args.bluff, "seed": args.seed}),
        seed=args.seed,
    )
    print(
        f"{args.matches} matches, {hands} hands, {log.num_rows} decisions in {wall:.2f} s "
        f"({hands / wall:,.0f} hands/s, after {loading:.1f} s loading the engine, compiled on "
        "first use); "
        f"matches won: team A {wins[0]} (bluffs at 0.2), team B {wins[1]} (at {args.bluff})"
    )
    print(f"decision log: {path.display()}")
    return 0
