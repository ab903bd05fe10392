"""``sparring ray start | status | stop``: this machine's shared local Ray head.

Pipelines with ``ray=local`` start the head on first need and join it after
(``runtime.ray.local_head``); these commands show it, start it ahead of time, or end it. ``stop``
ends only the head Sparring started for this environment, by its PID: never another Ray on the
machine (unlike ``ray stop``).
"""

from __future__ import annotations

import argparse
import time

from sparring.cli.common import integer
from sparring.runtime.ray import local_head


def register(top: argparse._SubParsersAction, groups: dict) -> None:
    about = "this machine's shared local Ray (the head ray=local pipelines join)"
    ray = top.add_parser("ray", help=about, description=about)
    tools = ray.add_subparsers(dest="ray_command", metavar="TOOL")
    tools.required = True
    start = tools.add_parser(
        "start",
        help="start the local head now (pipelines start it on first need anyway)",
        description="Start this environment's local Ray head, or say where the running one is.",
    )
    start.add_argument(
        "--num-cpus", type=integer(1), default=None, help="CPUs of a new head (default: every core)"
    )
    start.set_defaults(func=start_head)
    tools.add_parser(
        "status",
        help="whether the local head runs: its PID, address, CPUs, age",
        description="Show this environment's local Ray head.",
    ).set_defaults(func=status)
    tools.add_parser(
        "stop",
        help="end the local head (only Sparring's, by its PID; never other Rays)",
        description=(
            "End this environment's local Ray head and its Ray processes. Other Rays on the "
            "machine (a `ray start`, another checkout's head) are left alone."
        ),
    ).set_defaults(func=stop)


def _describe(head: local_head.Head) -> str:
    minutes = (time.time() - head.started_at) / 60
    return (
        f"local Ray head {head.pid} at {head.address}, {head.num_cpus} CPUs, "
        f"up {minutes:.0f} min (state: {local_head.home()})"
    )


def start_head(args: argparse.Namespace) -> int:
    print(_describe(local_head.ensure(args.num_cpus)))
    return 0


def status(args: argparse.Namespace) -> int:
    head = local_head.find()
    if head is None or not local_head.alive(head):
        running = local_head.serving()
        if running:  # its state file is gone and cannot be written again
            print(
                f"local Ray head {running[0]} runs, but its state file cannot be read "
                f"(under {local_head.home()}): sparring ray stop ends it"
            )
            return 0
        print("no local Ray head runs (the first pipeline with ray=local starts one)")
        return 0
    print(_describe(head))
    print(f"  ends after {local_head.idle_s():.0f} s without a driver, or: sparring ray stop")
    return 0


def stop(args: argparse.Namespace) -> int:
    head = local_head.stop()
    if head is None:
        print("no local Ray head was running")
    else:
        print(f"stopped the local Ray head {head.pid} ({head.address or 'found by its process'})")
    return 0
