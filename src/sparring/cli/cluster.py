"""``sparring cluster config``: fill cluster.yaml's parameters for ``ray up``."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from sparring.cli.common import output_file
from sparring.launch.cluster_config import DEFAULTS, TEMPLATE, render, validate


def register(top: argparse._SubParsersAction, groups: dict) -> None:
    cluster = top.add_parser(
        "cluster", help="the Ray cluster launcher config", description="cluster.yaml tools"
    )
    tools = cluster.add_subparsers(dest="cluster_command", metavar="TOOL")
    tools.required = True
    cfg = tools.add_parser(
        "config",
        help="fill cluster.yaml's parameters (image, region, instance types) for `ray up`",
        description=(
            "Fill the ${...} parameters of cluster.yaml and check the result with Ray's own "
            "schema; then `ray up <output>`. Needs boto3 for AWS: "
            "uv sync --locked --inexact --extra aws."
        ),
    )
    cfg.add_argument("--image", help="the AMI of every node (Ubuntu 22.04+, Python 3.11)")
    cfg.add_argument("--region", help=f"AWS region ({DEFAULTS['region']})")
    cfg.add_argument("--head-type", help=f"head instance type ({DEFAULTS['head_type']})")
    cfg.add_argument("--worker-type", help=f"worker instance type ({DEFAULTS['worker_type']})")
    cfg.add_argument(
        "--max-workers", help=f"autoscaled workers at most ({DEFAULTS['max_workers']})"
    )
    cfg.add_argument("--template", type=Path, default=TEMPLATE, help="the template (cluster.yaml)")
    cfg.add_argument("-o", "--output", type=output_file, help="write here (default: stdout)")
    cfg.set_defaults(func=config)


def config(args: argparse.Namespace) -> int:
    text = render(
        args.template.read_text(),
        {
            "image": args.image,
            "region": args.region,
            "head_type": args.head_type,
            "worker_type": args.worker_type,
            "max_workers": args.max_workers,
        },
    )
    validate(text)
    if args.output is None:
        sys.stdout.write(text)
        return 0
    tmp = args.output.with_name(f".{args.output.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, args.output)
    print(f"wrote {args.output}: ray up {args.output}", file=sys.stderr)
    return 0
