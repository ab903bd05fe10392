"""``sparring submit <pipeline> [overrides...]``: run a pipeline as a job on a Ray cluster."""

from __future__ import annotations

import argparse
import os
import sys

from sparring.launch.submit import (
    DEFAULT_ADDRESS,
    AlreadySubmitted,
    describe_shipped,
    follow,
    prepare,
    send,
    shipped,
)

HELP = "run a pipeline as a Ray job that carries this checkout's code"
DESCRIPTION = """\
Submit `python pipelines/<pipeline>.py <overrides>` to a Ray cluster's job server. The job
carries this checkout's working tree (src/sparring as py_modules, so every worker imports
exactly this code) and records the git commit, dirty flag, uv.lock digest and config hash as
tags of its MLflow run. The config is composed and checked here first; `ray=cluster` and
`tracking=server` are added unless you choose otherwise, and a relative output path is refused
(the job's directory is temporary): use s3://, gs:// or an absolute shared path.

examples:
  sparring submit evolve ga.population=256 deals.root=s3://bucket/deals \\
      checkpoint_root=s3://bucket/checkpoints
  sparring submit --no-wait --submission-id retrain-2026-11-30 retrain retrain.id=2026-11-30 \\
      checkpoint_root=s3://bucket/ck retrain.checkpoint_root=s3://bucket/retrain \\
      deals.root=s3://bucket/deals league.cache_dir=s3://bucket/league

Ray 2.60 needs RAY_AUTH_MODE=token for its job server (and the cluster's token)."""


def register(top: argparse._SubParsersAction, groups: dict) -> None:
    sub = top.add_parser(
        "submit",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub.add_argument(
        "--address",
        default=os.environ.get("RAY_JOB_ADDRESS") or DEFAULT_ADDRESS,
        help=f"the cluster's job server (default: $RAY_JOB_ADDRESS or {DEFAULT_ADDRESS})",
    )
    sub.add_argument(
        "--submission-id",
        help="the job's id: a second submission with it submits nothing and says the status of "
        "the first (followed unless --no-wait)",
    )
    sub.add_argument(
        "--no-wait", action="store_true", help="print the job id and return (default: follow it)"
    )
    sub.add_argument(
        "--dry-run",
        action="store_true",
        help="check the job and show what it ships (files, sizes, the largest) and runs; "
        "send nothing",
    )
    sub.add_argument("pipeline", help="evolve, handgen, equity, retrain, tune, ...")
    sub.add_argument("overrides", nargs=argparse.REMAINDER, help="Hydra overrides")
    sub.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    job = prepare(args.pipeline, args.overrides)
    dirty = " (with uncommitted changes)" if job.dirty == "true" else ""
    print(
        f"job: {job.pipeline} at {job.commit[:12]}{dirty}, config {job.config_hash[:12]}",
        file=sys.stderr,
    )
    if args.dry_run:
        for line in describe_shipped(shipped(job.runtime_env)):
            print(line)
        print(job.entrypoint)
        return 0
    try:
        job_id = send(job, args.address, args.submission_id)
    except AlreadySubmitted as done:  # idempotent: the job of that id is the one to follow
        print(f"{done}: not submitted again", file=sys.stderr)
        job_id = done.submission_id
        if args.no_wait or done.status in ("SUCCEEDED", "FAILED", "STOPPED"):
            return 0 if done.status != "FAILED" else 1
    else:
        print(f"submitted {job_id} to {args.address}", file=sys.stderr)
    if args.no_wait:
        print(f"follow it: ray job logs --follow --address {args.address} {job_id}")
        return 0
    status = follow(args.address, job_id)
    print(f"job {job_id}: {status}", file=sys.stderr)
    return 0 if status == "SUCCEEDED" else 1
