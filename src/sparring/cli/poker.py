"""``sparring equity``, ``sparring poker replay`` and ``sparring poker acpc-client``."""

from __future__ import annotations

import argparse

from sparring.cli.common import (
    UsageError,
    existing_dir,
    group,
    integer,
    number,
    readable_store,
    seed,
)
from sparring.poker.catalog import BASELINES, MAX_OPPONENTS

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

    tools = group(top, groups, "poker", "poker tools (replay a hand of a deal set, ACPC client)")
    rp = tools.add_parser(
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

    ac = tools.add_parser(
        "acpc-client",
        help="play any Sparring agent in an ACPC match (connects to an ACPC dealer)",
        description="Connect an agent to an ACPC dealer (protocol 2.0.0) and play every hand "
        "it is sent until it closes the connection. Only Sparring's fixed-limit hold'em is "
        "played: --game must describe it (the files in src/sparring/poker/data/acpc/ do). "
        "Exit 0 at the end of the match; a protocol error is one line and exit 1; bad input "
        "(a game file that is not Sparring's game, an agent that does not play poker, an "
        "address where no dealer answers or another program listens) one line and exit 2.",
    )
    ac.add_argument("host", help="the dealer's host (e.g. 127.0.0.1)")
    ac.add_argument("port", type=integer(1, 65535), help="the dealer's port for this seat")
    ac.add_argument(
        "--agent",
        default="poker@tight_aggressive",
        help="an agent spec that plays poker: champion@<alias|version>, poker@<baseline>, "
        "py:<module>:<Name>, random, first, ... (default poker@tight_aggressive)",
    )
    ac.add_argument(
        "--game",
        required=True,
        help="the ACPC game definition file, e.g. "
        "src/sparring/poker/data/acpc/sparring.limit.2p.game",
    )
    ac.add_argument(
        "--tracking-uri",
        default="sqlite:///mlflow.db",
        help="where champion@ agents are registered (default sqlite:///mlflow.db)",
    )
    ac.add_argument(
        "--model-name",
        default="sparring-holdem-champion",
        help="the registered model champion@ names (default sparring-holdem-champion)",
    )
    ac.add_argument(
        "--timeout",
        type=number(0.0, 1e9, low_open=True),
        default=600.0,
        help="seconds the dealer may stay silent before the client gives up (default 600)",
    )
    ac.set_defaults(func=acpc_client)


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

    from sparring.frame.deal_set_store import load_deal_set
    from sparring.poker.bots import baseline, baseline_table
    from sparring.poker.cards import format_cards
    from sparring.poker.table import play_hand_reference, seating
    from sparring.runtime.storage.datasets import DatasetError

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


def acpc_client(args: argparse.Namespace) -> int:
    """Play ``--agent`` in the ACPC match at host:port; a summary line at the end."""
    import sys

    from sparring.arena.acpc_client import NotADealer, ProtocolError, play
    from sparring.arena.agents import make, parse
    from sparring.poker.acpc import AcpcError, load_gamedef
    from sparring.runtime.programs.program import Limits

    try:
        gamedef = load_gamedef(args.game)
    except AcpcError as exc:
        raise UsageError(f"--game: {exc}") from None
    spec = parse(args.agent, "--agent")
    if spec.games is not None and "poker" not in spec.games:
        raise UsageError(f"--agent {args.agent}: plays {', '.join(spec.games)}, not poker")
    if spec.kind in ("cmd", "acpc"):
        raise UsageError(f"--agent {args.agent}: a program seat needs the arena; use py:, "
                         "champion@ or poker@ here")  # fmt: skip
    resolved = None
    if spec.kind == "champion":
        from sparring.champions.registry import resolve_champion

        readable_store(args.tracking_uri)  # a mistyped path must not leave an empty store behind
        resolved = resolve_champion(args.tracking_uri, args.model_name, spec, "--agent")
    agent = make(spec, Limits(), resolved=resolved)
    try:
        session = play(agent, gamedef.num_players, args.host, args.port, args.timeout)
    except NotADealer as exc:  # a port another program has taken: the address is wrong
        raise UsageError(f"{args.host}:{args.port} is not an ACPC dealer: {exc}") from None
    except ProtocolError as exc:
        print(f"error: protocol: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        why = exc.strerror or str(exc)
        raise UsageError(f"cannot reach the dealer at {args.host}:{args.port} ({why})") from None
    print(f"{args.agent}: {session.hands} hands, {session.actions} actions sent", file=sys.stderr)
    return 0
