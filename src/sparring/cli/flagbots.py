"""``sparring play flagbots``: a game against the alpha-beta engine in the terminal."""

from __future__ import annotations

import argparse

from sparring.cli.common import integer, number
from sparring.flagbots.searchers import SEARCHERS

MAPS = ("default", "wall_row")
SIDES = ("south", "north")


def register(top: argparse._SubParsersAction, groups: dict) -> None:
    fb = groups["play"].add_parser(
        "flagbots",
        help="FlagBots against the alpha-beta engine",
        description="Play FlagBots against the engine: type moves like c2-d3 or x c2 "
        "(self-destruct); illegal moves are refused with the reason.",
    )
    fb.add_argument("--side", default="south", choices=SIDES, help="south moves first")
    fb.add_argument(
        "--searcher", default="full", choices=tuple(SEARCHERS), help="engine configuration"
    )
    fb.add_argument(
        "--time", type=number(0, 3600, low_open=True), default=1.0, help="engine s/move (1.0)"
    )
    fb.add_argument("--depth", type=integer(1, 30), default=None, help="fixed engine depth instead")
    board = fb.add_mutually_exclusive_group()
    board.add_argument("--map", default="default", choices=MAPS, help="the board (default)")
    board.add_argument(
        "--position",
        type=position,
        default=None,
        help='start from a position written as text, e.g. "5/1NNN1/5/1SSS1/5 s 20" '
        "(docs/rules/flagbots.md: the position as text)",
    )
    fb.set_defaults(func=play)


def position(text: str):
    """An argparse type: a FlagBots position from its text."""
    from sparring.flagbots.game import Position

    try:
        return Position.from_text(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def play(args: argparse.Namespace) -> int:
    """Play one game; the engine answers each move."""
    from sparring.flagbots.engine import Engine
    from sparring.flagbots.game import IllegalMoveError, Position
    from sparring.flagbots.rules import FlagBotsConfig
    from sparring.flagbots.searchers import searcher

    if args.position is not None:
        pos = args.position
    else:
        pos = Position(FlagBotsConfig.wall_row() if args.map == "wall_row" else FlagBotsConfig())
    engine = Engine(pos.cfg, searcher(args.searcher, time_s=args.time))
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
