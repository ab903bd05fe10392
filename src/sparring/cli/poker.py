"""``sparring equity`` and ``sparring poker replay``."""

from __future__ import annotations

import argparse

from sparring.cli.common import UsageError, existing_dir, integer, seed
from sparring.poker.bots import BASELINES
from sparring.poker.equity import MAX_OPPONENTS

HEROES = tuple(b for b in BASELINES if b != "mixed")


def register(top: argparse._SubParsersAction, groups: dict) -> None:
    eq = top.add_parser(
        "equity",
        help="hold'em equity of a hand against random opponents",
        description="Equity of a hold'em hand against random opponent hands: exact when there "
        "are at most --trials outcomes, else Monte Carlo. A k-way tie counts 1/k.",
    )
    eq.add_argument("hero", help='two hole cards, e.g. "AsKs" (ranks 23456789TJQKA, suits cdhs)')
    eq.add_argument("--board", default="", help='0 to 5 board cards, e.g. "Ah 7c 2d"')
    eq.add_argument(
        "--opponents",
        type=integer(1, MAX_OPPONENTS),
        default=1,
        help=f"random opponents, 1..{MAX_OPPONENTS} (default 1)",
    )
    eq.add_argument(
        "--trials", type=integer(1), default=200_000, help="Monte Carlo outcomes (200000)"
    )
    eq.add_argument("--seed", type=seed, default=0, help="random seed >= 0 (default 0)")
    eq.add_argument("--exact", action="store_true", help="enumerate every outcome")
    eq.set_defaults(func=equity)

    rp = groups["poker"].add_parser(
        "replay",
        help="print one hand of a deal set action by action",
        description="Replay one rotation of one deal with baseline players: every action with "
        "the equity or gene behind it, the pot, and the showdown.",
    )
    rp.add_argument(
        "--deals", required=True, type=existing_dir, help="a deal-set directory (data/deals/<h>)"
    )
    rp.add_argument("--deal", type=integer(0), default=0, help="deal id (default 0)")
    rp.add_argument("--rotation", type=integer(0), default=0, help="rotation 0..N*N-1 (default 0)")
    rp.add_argument(
        "--hero",
        default="tight_aggressive",
        choices=HEROES,
        help="player 0's baseline (default tight_aggressive)",
    )
    rp.add_argument(
        "--table",
        default="mixed",
        choices=BASELINES,
        help="baseline of players 1..N-1 (default mixed)",
    )
    rp.set_defaults(func=replay)


def equity(args: argparse.Namespace) -> int:
    """Print equity, win and tie rates and the standard error."""
    from sparring.poker.cards import format_cards
    from sparring.poker.equity import equity as hand_equity

    method = "exact" if args.exact else "auto"
    try:
        r = hand_equity(
            args.hero, args.board, args.opponents, args.trials, args.seed, method=method
        )
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


def replay(args: argparse.Namespace) -> int:
    """Print one hand of a deal set, action by action."""
    import numpy as np

    from sparring.poker.bots import baseline, baseline_table
    from sparring.poker.cards import format_cards
    from sparring.poker.table import play_hand_reference, seating
    from sparring.runtime.datasets import DatasetError
    from sparring.services.dealsets import load_deal_set

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
