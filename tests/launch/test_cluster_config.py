"""cluster.yaml: a template whose parameters ``sparring cluster config`` fills, valid for Ray's
own schema once filled, with setup commands that install the project from the lock."""

import copy
import os
import shlex
import shutil
import subprocess

import jsonschema
import pytest
import yaml
from ray.autoscaler._private.util import prepare_config, validate_config

from sparring.launch.cluster_config import TEMPLATE, fields, render, validate
from sparring.runtime.errors import UsageError
from tests.helpers.commands import ROOT, run_cli

IMAGE = "ami-0abc12345def67890"


def filled(**values) -> dict:
    return yaml.safe_load(render(TEMPLATE.read_text(), {"image": IMAGE, **values}))


def test_the_template_names_its_parameters():
    assert fields(TEMPLATE.read_text()) == {
        "image",
        "region",
        "head_type",
        "worker_type",
        "max_workers",
    }


def test_a_filled_config_passes_rays_validation_with_the_values_in_place():
    text = render(
        TEMPLATE.read_text(),
        {"image": IMAGE, "region": "us-east-2", "worker_type": "c7a.8xlarge", "max_workers": 3},
    )
    cfg = validate(text)
    head = cfg["available_node_types"][cfg["head_node_type"]]
    worker = cfg["available_node_types"]["cpu_worker"]
    assert cfg["provider"]["region"] == "us-east-2"
    assert head["node_config"] == {"InstanceType": "m7i.large", "ImageId": IMAGE}
    assert worker["node_config"]["InstanceType"] == "c7a.8xlarge"
    assert worker["node_config"]["ImageId"] == IMAGE
    assert cfg["max_workers"] == worker["max_workers"] == 3
    assert head["resources"] == {"CPU": 0}  # the head does no work
    setup = cfg["setup_commands"]
    assert any("uv sync --locked --compile-bytecode --extra aws" in c for c in setup)
    start = " ".join(cfg["head_start_ray_commands"])
    assert "--dashboard-host=127.0.0.1" in start


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({}, "--image is required: an AMI id"),
        ({"image": "ami-0123"}, "--image=ami-0123 is not allowed: expected an AMI id"),
        ({"image": IMAGE, "region": "Europe"}, "--region=Europe is not allowed"),
        ({"image": IMAGE, "max_workers": "-1"}, "--max-workers=-1 is not allowed"),
    ],
)
def test_missing_or_malformed_parameters_are_refused_in_one_line(values, message):
    with pytest.raises(UsageError, match=f"^{message}"):
        render(TEMPLATE.read_text(), values)


def test_the_template_itself_is_refused_until_filled():
    with pytest.raises(UsageError, match="unfilled parameters: head_type, image"):
        validate(TEMPLATE.read_text())


def test_a_broken_config_is_rejected():
    cfg = filled()
    cfg["available_node_types"]["head"]["bogus_field"] = 1
    with pytest.raises(jsonschema.ValidationError, match="bogus_field"):
        validate_config(prepare_config(copy.deepcopy(cfg)))


def test_the_command_writes_a_config_ray_up_accepts(tmp_path):
    out = tmp_path / "cluster.local.yaml"
    proc = run_cli("cluster", "config", "--image", IMAGE, "-o", str(out), timeout=120)
    assert proc.returncode == 0, proc.stderr
    validate(out.read_text())
    bad = run_cli("cluster", "config", "--region", "x", timeout=120)
    assert bad.returncode == 2
    assert bad.stderr.strip() == (
        "sparring cluster: error: --image is required: an AMI id like ami-0abc12345def67890"
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to copy the checkout")
def test_the_setup_commands_install_the_project_in_a_fresh_home(tmp_path):
    """What every node runs, in a fresh home with the repository copied to ~/sparring (the
    file mount): uv, then the locked environment with the aws extra; sparring and boto3
    import, and the shell profile puts the environment on PATH."""
    home = tmp_path / "home"
    home.mkdir()
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(home / "sparring")], check=True)
    cache = subprocess.run(["uv", "cache", "dir"], capture_output=True, text=True).stdout.strip()
    env = {**os.environ, "HOME": str(home)}
    if cache:
        env["UV_CACHE_DIR"] = cache  # the machine's package cache: no second download
    for command in filled()["setup_commands"]:
        proc = subprocess.run(
            ["bash", "-c", command], env=env, capture_output=True, text=True, timeout=900
        )
        assert proc.returncode == 0, f"{command}: {proc.stderr[-2000:]}"
    python = home / "sparring" / ".venv" / "bin" / "python"
    proc = subprocess.run(
        [python, "-c", "import sparring, boto3; print(sparring.__file__)"],
        capture_output=True,
        text=True,
        env={k: v for k, v in env.items() if k != "PYTHONPATH"},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().startswith(str(home / "sparring" / "src" / "sparring"))
    assert f"{home}/sparring/.venv/bin" in (home / ".bashrc").read_text().replace(
        "$HOME", str(home)
    )


def sync_extras(command: str) -> list[str]:
    """The ``--extra`` names of a ``uv sync`` command line, in order."""
    words = command.split()
    return [words[i + 1] for i, w in enumerate(words[:-1]) if w == "--extra"]


def test_the_heads_mlflow_server_keeps_the_nodes_environment(tmp_path):
    """The head starts its MLflow server with make, whose ``setup`` syncs the venv exactly:
    with other extras than setup_commands' it would remove boto3 under the autoscaler. Make is
    asked what it would run (``-n``) in a checkout without a venv, as on a fresh node."""
    cfg = filled()
    (setup,) = [c for c in cfg["setup_commands"] if "uv sync" in c]
    (start,) = [c for c in cfg["head_start_ray_commands"] if "make mlflow-server" in c]
    variables = start.split("make mlflow-server", 1)[1].split(">", 1)[0].strip()
    for name in ("Makefile", "pyproject.toml", "uv.lock"):
        shutil.copy(ROOT / name, tmp_path / name)

    def planned(*assignments: str) -> str:
        out = subprocess.run(
            ["make", "-n", "mlflow-server", *assignments],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        (sync,) = [line for line in out.splitlines() if " sync --locked" in line]
        return sync

    head = planned(*shlex.split(variables))
    assert sync_extras(head) == sync_extras(setup) == ["aws"]
    # control: without the node's extras, make would sync the checkout's own (no aws)
    assert "aws" not in sync_extras(planned())
