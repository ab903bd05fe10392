"""An embedded Ray on this machine's loopback only: its servers bind 127.0.0.1, nothing else.

Used by every Ray this project starts on one machine: a driver's embedded Ray, and the local head
(``runtime.ray.local_head``), which ``runtime.ray.session`` joins.
"""

from __future__ import annotations


def loopback_only() -> None:
    """Make the embedded Ray listen on 127.0.0.1 only.

    Ray turns a node address of 127.0.0.1 into the machine's outward address
    (``ray._private.services.resolve_ip_for_localhost``), so its GCS, raylet, agents and
    workers would listen on every interface. The one switch that keeps them on loopback is the
    flag Ray sets on macOS and Windows ("no cluster on this machine"); an embedded Ray is
    exactly that, and Ray reads the flag at call time. ``tests/ops/test_loopback.py`` lists
    what listens."""
    from ray._private import ray_constants

    ray_constants.ENABLE_RAY_CLUSTER = False
