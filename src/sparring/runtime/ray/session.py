"""Connecting to Ray from a config: this machine's shared local Ray, an embedded one, or a cluster.

``conf/ray/local.yaml`` (``address: null``) joins this machine's local head, starting it on
first need (``runtime.ray.local_head``: one Ray for every pipeline of the machine, loopback only);
``conf/ray/embedded.yaml`` (``shared: false``, or any ``num_cpus``) starts a Ray inside the
driver process that ends with it; ``conf/ray/cluster.yaml`` attaches to a running cluster
(``address: auto``). Inside a Ray job
(``ray job submit``) ``address: null`` means the job's cluster: a new embedded Ray there would
inherit the job's runtime env and fail to set it up. ``init_ray`` is idempotent: a second call,
or a call inside a Ray task where Ray is already up, reuses it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import ray

from sparring.runtime.provenance import in_ray_job, ray_job_id
from sparring.runtime.ray import local_head
from sparring.runtime.ray.health import unwatch, watch_head
from sparring.runtime.ray.loopback import loopback_only
from sparring.runtime.ray.reaper import start_reaper
from sparring.runtime.ray.settings import RayConfig
from sparring.runtime.signals import handle_termination


def init_ray(cfg: RayConfig | Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Start or attach to Ray as ``cfg`` says (``RayConfig``; a mapping of some of its fields
    is read as one) and return the cluster resources."""
    options = RayConfig.of(cfg)
    num_cpus = options.num_cpus
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {
            "namespace": options.namespace,
            "log_to_driver": options.log_to_driver,
            "logging_level": logging.WARNING,
            "configure_logging": True,
        }
        local = not options.address and not in_ray_job()
        shared = local and options.shared and num_cpus is None
        embedded = local and not shared
        if options.address:
            kwargs["address"] = options.address
        elif not local:
            # the driver of a Ray job: join the job's cluster (Ray set RAY_ADDRESS for it)
            kwargs["address"] = "auto"
        elif shared:
            head = _join_local_head(kwargs)
            handle_termination()
            watch_head(head.pid, head.start)  # a head gone mid-run: one line, not a minute
            return dict(ray.cluster_resources())
        else:
            # "local" always starts a new embedded Ray; without it ray.init() would attach to
            # any cluster that `ray start` left running on this machine.
            kwargs["address"] = "local"
            kwargs["num_cpus"] = num_cpus
            loopback_only()
            kwargs["include_dashboard"] = options.include_dashboard
        ray.init(**kwargs)
        handle_termination()  # Ray's driver installs its own SIGTERM handler, which aborts
        if embedded:
            start_reaper()  # the embedded Ray's agents must not outlive a killed driver
    return dict(ray.cluster_resources())


def _join_local_head(kwargs: dict[str, Any]) -> local_head.Head:
    """``ray.init`` on this machine's local head, which it returns; a head that went away
    between reading its file and connecting (it was idle, or killed) is replaced once."""
    loopback_only()  # the driver's own servers too
    kwargs["runtime_env"] = local_head.driver_runtime_env()
    for attempt in (1, 2):
        head = local_head.ensure()
        local_head.check_token(head)  # another HOME's token: one line, not Ray's twenty
        _use_auth_mode(head.auth_mode)
        try:
            ray.init(address=head.address, **kwargs)
            return head
        except ConnectionError:
            if attempt == 2 or local_head.alive(head):
                raise
    raise AssertionError("unreachable")


def _use_auth_mode(mode: str) -> None:
    """Connect with the head's RAY_AUTH_MODE (its token is in ~/.ray/auth_token). Ray reads the
    mode once, when it is imported; ``Config.initialize`` reads it again (as Ray itself does
    when ``ray.init`` turns token auth on for a new local Ray)."""
    if os.environ.get("RAY_AUTH_MODE") != mode:
        from ray._raylet import Config  # type: ignore[attr-defined]

        os.environ["RAY_AUTH_MODE"] = mode
        Config.initialize("")


def job_page() -> str | None:
    """The Ray dashboard's page of the job this driver runs in
    (``http://<dashboard>/#/jobs/<submission id>``); None outside a job or without a
    dashboard."""
    job = ray_job_id()
    if not job or not ray.is_initialized():
        return None
    from ray._private.worker import get_dashboard_url

    url = get_dashboard_url()
    if not url:
        return None
    return f"{url if '://' in url else 'http://' + url}/#/jobs/{job}"


def shutdown_ray() -> None:
    """Stop the embedded Ray (or detach from a cluster) if connected."""
    unwatch()  # the head may end now: not this driver's concern any more
    if ray.is_initialized():
        ray.shutdown()
