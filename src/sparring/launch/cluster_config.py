"""``cluster.yaml`` is a template: its ``${name}`` fields (image, region, instance types, the
worker bound) are filled here and the result checked with Ray's own cluster-config schema."""

from __future__ import annotations

import copy
import re
from typing import Any

from sparring.runtime.checkout import cluster_template
from sparring.runtime.errors import UsageError

TEMPLATE = cluster_template()
FIELD = re.compile(r"\$\{(\w+)\}")
DEFAULTS: dict[str, Any] = {
    "region": "eu-west-1",
    "head_type": "m7i.large",  # the head runs the driver, the GCS and MLflow: no work
    "worker_type": "c7i.4xlarge",
    "max_workers": 8,
}
CHECKS = {
    "image": (re.compile(r"ami-[0-9a-f]{8,17}"), "an AMI id like ami-0abc12345def67890"),
    "region": (re.compile(r"[a-z]{2}(-[a-z]+)+-\d"), "an AWS region like eu-west-1"),
    "head_type": (re.compile(r"[a-z0-9-]+\.[a-z0-9]+"), "an instance type like m7i.large"),
    "worker_type": (re.compile(r"[a-z0-9-]+\.[a-z0-9]+"), "an instance type like c7i.4xlarge"),
    "max_workers": (re.compile(r"\d{1,4}"), "an integer in 0..9999"),
}


def fields(text: str) -> set[str]:
    """The parameters a template names."""
    return set(FIELD.findall(text))


def render(text: str, values: dict[str, Any]) -> str:
    """The template with every ``${name}`` filled; a missing or malformed value is one
    ``UsageError`` naming it and what is allowed."""
    given = {**DEFAULTS, **{k: v for k, v in values.items() if v is not None}}
    for name in sorted(fields(text)):
        if name not in given:
            raise UsageError(f"--{name.replace('_', '-')} is required: {CHECKS[name][1]}")
        pattern, allowed = CHECKS[name]
        if not pattern.fullmatch(str(given[name])):
            raise UsageError(
                f"--{name.replace('_', '-')}={given[name]} is not allowed: expected {allowed}"
            )
    return FIELD.sub(lambda m: str(given[m.group(1)]), text)


def validate(text: str) -> dict[str, Any]:
    """Parse a filled config and check it with Ray's cluster-launcher schema."""
    import logging

    import yaml
    from ray.autoscaler._private.util import prepare_config, validate_config

    logging.getLogger("ray.autoscaler").setLevel(logging.WARNING)  # its notes are not ours

    if fields(text):
        raise UsageError(f"unfilled parameters: {', '.join(sorted(fields(text)))}")
    config = yaml.safe_load(text)
    validate_config(prepare_config(copy.deepcopy(config)))
    return dict(config)
