"""Pipelines run as ``sparring <name> <Hydra overrides>``: ``sparring tune ...``,
``sparring arena ...``. Everything after the name is Hydra's (``--help``, ``--cfg job``)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from sparring.runtime.checkout import pipeline_script
from sparring.runtime.errors import UsageError


@dataclass(frozen=True)
class HydraCommand:
    """``sparring <name>`` = ``python pipelines/<name>.py``; ``target`` is its body. What else
    the launcher does for it (its exit status, resume hint, preflight) is the pipeline's traits
    (``sparring.pipelines.PIPELINES``), the same for both."""

    name: str
    help: str
    target: str

    def register(self, top: argparse._SubParsersAction, groups: dict) -> None:
        parser = top.add_parser(self.name, help=self.help, description=self.help, add_help=False)
        parser.add_argument("overrides", nargs=argparse.REMAINDER, help="Hydra overrides")
        parser.set_defaults(func=self.run)

    def script(self) -> Path:
        """``pipelines/<name>.py`` of the checkout the package runs from (``conf/`` beside)."""
        path = pipeline_script(self.name)
        if not path.exists():
            raise UsageError(
                f"sparring {self.name} runs from a checkout: {path} is missing (install with "
                f"`uv sync` in the repository, or run python pipelines/{self.name}.py there)"
            )
        return path

    def run(self, args: argparse.Namespace) -> int:
        """Hand the overrides to the Hydra app; exits with its status."""
        from sparring.launch.app import launch

        path = self.script()
        sys.argv = [str(path), *args.overrides]
        launch(str(path), self.name, self.target)
        return 0
