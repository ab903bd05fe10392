"""``sparring eleusis referee`` and ``sparring eleusis scientist``: the line protocol."""

from __future__ import annotations

import argparse

from sparring.cli.common import UsageError, group, integer, number, seed
from sparring.eleusis.limits import MAX_H0
from sparring.eleusis.roster import NAMES


def register(top: argparse._SubParsersAction, groups: dict) -> None:
    tools = group(top, groups, "eleusis", "Probabilistic Eleusis: referee and scientists")
    ref = tools.add_parser(
        "referee",
        help="run a scientist program over stdin/stdout for one game",
        description="Referee one game: the program writes guesses '<suit> <number>' (suits "
        "CDHS, numbers 1..13) and reads '<suit> <number> <0|1> <0|1>'. The program runs in its "
        "own process group, ended when the game ends however it ends. Exit status 0 when the "
        "game finished or hit the cap, 3 when the program broke the protocol (a malformed, "
        "over-long or non-UTF-8 line, or it stopped), 4 when it did not move in time.",
    )
    ref.add_argument("--deck", required=True, help="family[:k=v,...], e.g. spike:alpha=0.5")
    ref.add_argument("--seed", type=seed, default=0, help="game seed (deck instance and draws)")
    ref.add_argument(
        "--harma", type=integer(1, MAX_H0), default=100, help="starting harma (default 100)"
    )
    ref.add_argument(
        "--cap", type=integer(1), default=1_000_000, help="guess cap (default 1000000)"
    )
    ref.add_argument(
        "--move-timeout",
        type=number(0, 86_400, low_open=True),
        default=10.0,
        help="seconds the program has for each move (default 10)",
    )
    ref.add_argument(
        "--start-timeout",
        type=number(0, 86_400, low_open=True),
        default=60.0,
        help="seconds for the first move, which includes starting the program (default 60)",
    )
    ref.add_argument(
        "--game-timeout",
        type=number(0, 86_400 * 30, low_open=True),
        default=None,
        help="seconds for the whole game (default: no limit)",
    )
    ref.add_argument(
        "--max-line",
        type=integer(16, 1 << 20),
        default=1024,
        help="longest line accepted from the program, in bytes (default 1024)",
    )
    ref.add_argument(
        "--sandbox",
        choices=("bwrap", "none"),
        default=None,
        help="bwrap: the program runs in bubblewrap's sandbox (docs/operations/security.md); "
        "none: with your rights (default: $SPARRING_SANDBOX or bwrap)",
    )
    ref.add_argument(
        "--read-only",
        action="append",
        default=[],
        metavar="PATH",
        help="one more absolute path the sandboxed program may read (repeatable)",
    )
    ref.add_argument("program", nargs=argparse.REMAINDER, help="-- COMMAND [ARGS...]")
    ref.set_defaults(func=referee)
    sci = tools.add_parser(
        "scientist",
        help="one of our scientists speaking the line protocol",
        description="Write guesses to stdout, read feedback from stdin until it closes. The "
        "references: oracle and optimal are told the deck, informed is told its family.",
    )
    sci.add_argument("--name", default="em_greedy", choices=NAMES, help="the scientist")
    sci.add_argument("--seed", type=seed, default=0, help="seed of its random choices")
    sci.add_argument(
        "--harma", type=integer(1, MAX_H0), default=100, help="starting harma (for optimal)"
    )
    sci.add_argument(
        "--deck", default=None, help="the deck (oracle, optimal) or its family (informed) only"
    )
    sci.set_defaults(func=scientist)


def _deck(spec: str, seed: int):
    from sparring.eleusis.decks import make_deck

    try:
        return make_deck(spec, seed)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc


def referee(args: argparse.Namespace) -> int:
    """Referee one game between the deck and a scientist program."""
    from sparring.eleusis.env import EleusisGame
    from sparring.eleusis.protocol import EXIT_FINISHED, EXIT_INVALID, EXIT_TIMEOUT, run_referee

    command = list(args.program)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        raise UsageError("give the scientist program after --, e.g. -- sparring eleusis scientist")
    _check_sandbox(args)
    game = EleusisGame(_deck(args.deck, args.seed), args.seed, args.harma, args.cap)
    result = run_referee(
        game,
        command,
        args.move_timeout,
        args.game_timeout,
        max_line=args.max_line,
        start_timeout=args.start_timeout,
        sandbox=args.sandbox,
        read_only=args.read_only,
    )
    if result.status == "invalid":
        print(f"invalid game after {result.guesses} guesses: {result.message}")
        return EXIT_INVALID
    if result.status == "timeout":
        print(f"lost on time after {result.guesses} guesses: {result.message}")
        return EXIT_TIMEOUT
    word = "finished" if result.status == "finished" else "did not finish (cap reached)"
    print(f"{word}: {result.guesses} guesses, harma {result.harma}")
    return EXIT_FINISHED


def _check_sandbox(args: argparse.Namespace) -> None:
    """The sandbox can run here (or the user opted out), and every --read-only path exists:
    one line before the game otherwise."""
    import os

    from sparring.runtime.programs import jail

    for path in args.read_only:
        if not os.path.isabs(path) or not os.path.exists(path):
            raise UsageError(f"--read-only {path}: expected an existing absolute path")
    if (args.sandbox or jail.default_mode()) == "bwrap" and (why := jail.problem()):
        raise UsageError(f"{why}; or run it unsandboxed, with your rights: --sandbox none")


def scientist(args: argparse.Namespace) -> int:
    """Run one of our scientists over stdin/stdout."""
    from sparring.eleusis.protocol import run_scientist

    p_true = _deck(args.deck, args.seed) if args.deck else None
    if args.name in ("oracle", "optimal") and p_true is None:
        raise UsageError(f"the {args.name} knows the deck: give --deck (and the game's --seed)")
    if args.name == "informed":
        from sparring.eleusis.hypotheses import hypotheses

        if not args.deck:
            raise UsageError("the informed reference knows the deck's family: give --deck")
        try:
            hypotheses(args.deck)
        except ValueError as exc:
            raise UsageError(str(exc)) from exc
    return run_scientist(args.name, args.seed, args.harma, p_true, family=args.deck)
