"""cluster.yaml is a valid Ray cluster-launcher config (Ray's own schema, offline)."""

import copy
from pathlib import Path

import jsonschema
import pytest
import yaml
from ray.autoscaler._private.util import prepare_config, validate_config

CLUSTER = Path(__file__).resolve().parents[2] / "cluster.yaml"


def load():
    return yaml.safe_load(CLUSTER.read_text())


def test_cluster_yaml_passes_rays_validation():
    cfg = load()
    validate_config(prepare_config(copy.deepcopy(cfg)))
    head = cfg["available_node_types"][cfg["head_node_type"]]
    assert head["resources"] == {"CPU": 0}  # the head does no work
    assert any("uv sync --locked" in c for c in cfg["setup_commands"])
    start = " ".join(cfg["head_start_ray_commands"])
    assert "--dashboard-host=127.0.0.1" in start


def test_a_broken_config_is_rejected():
    cfg = load()
    cfg["available_node_types"]["head"]["bogus_field"] = 1
    with pytest.raises(jsonschema.ValidationError, match="bogus_field"):
        validate_config(prepare_config(cfg))
