"""``sparring``: small interactive tools, one module per domain.

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
    sparring tune hparams_search=ga_tpe trials=24 concurrency=2
    sparring submit evolve ga.population=256 deals.root=s3://bucket/deals
    sparring ray status | sparring ray stop

Each domain module registers its subcommands next to their handlers: the games' own (``poker``,
``mus``, ``flagbots``, ``eleusis``; a plugin's too) are added because each game names its module
in its ``commands`` trait, the others (runs, tune, arena, cluster, submit, ray) are ``DOMAINS``.
Every input is checked before any work: a bad one ends the command with one line on stderr and
exit status 2 (``SPARRING_DEBUG=1`` shows the traceback of an unexpected failure).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from sparring import game_api
from sparring.cli import arena, cluster, local_ray, runs, submit, tune
from sparring.cli.common import EXIT_USAGE, Parser, group
from sparring.runtime.errors import EXIT_INTERRUPTED, reader_gone, said_last
from sparring.runtime.explain import one_line

DOMAINS = (runs, tune, arena, cluster, submit, local_ray)
"""The commands of no one game; each game adds its own (its ``commands`` trait)."""


def build_parser() -> argparse.ArgumentParser:
    """The whole ``sparring`` command line."""
    parser = Parser(
        prog="sparring",
        description="Sparring: tools for training and evaluating game-playing agents.",
    )
    top = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    top.required = True
    groups: dict[str, argparse._SubParsersAction] = {}
    group(top, groups, "play", "play a game in the terminal")
    for game in game_api.registered():  # the built-ins, then installed plugins
        commands = game_api.trait(game, "commands")
        if commands:
            game_api.load(commands)(top, groups)
    for domain in DOMAINS:
        domain.register(top, groups)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``sparring <argv>``; returns the exit status (2 for bad input, 130 for Ctrl-C)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] in (["tune"], ["arena"]):  # everything after it is Hydra's, --help included
        command = tune if argv[0] == "tune" else arena
        return command.run(argparse.Namespace(overrides=argv[1:]))
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # --help (0) or a bad argument (2, already reported)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `sparring results | head`: the reader has all it wanted
        return reader_gone()
    except Exception as exc:
        line = one_line(exc)
        if line is None or os.environ.get("SPARRING_DEBUG"):
            raise
        print(f"sparring {args.command}: error: {line}", file=sys.stderr)
        return EXIT_USAGE


def console() -> None:
    """The ``sparring`` program: ``main`` on the command line, and a failure's line (error,
    interrupted, the resume command) stays the last one: the teardown after it is not shown."""
    status = main()
    if status:
        said_last()
    sys.exit(status)


__all__ = ["build_parser", "console", "main"]
