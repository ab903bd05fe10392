"""Look at the MLflow UI as a person would: headless Chromium screenshots of a run.

    python -m sparring.launch.screenshots --tracking-uri sqlite:///mlflow.db --out data/ui

starts ``mlflow ui`` on a free 127.0.0.1 port over the store, opens the experiment page (the
runs table) and the page of the latest top-level run of ``--experiment`` (default evolve) in
headless Chromium (Debian's ``chromium`` package), writes ``experiment.png`` and ``run.png`` and
checks that the rendered pages show what a person needs: the run's name, its source (the
pipeline script), its datasets, params and metrics. Exit status 0 when every check passes, 1
when one fails (listed), 2 when Chromium or the run is missing. ``tests/ops/test_mlflow_ui.py``
runs it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from mlflow.tracking import MlflowClient

from sparring.reporting.runs import latest_top_level
from sparring.runtime.net import free_port, stop_group, wait_for
from sparring.runtime.tracking.servers import server_argv, server_environment

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
# MLflow 3.17's UI opens in its GenAI mode (a switch at the top left that the browser remembers)
# whatever the experiment's kind; this query selects the classic runs table.
CLASSIC = "workflowType=machine_learning"


@dataclass
class PageCheck:
    """One page: where it is, its screenshot, and the texts it must show."""

    name: str
    url: str
    screenshot: Path
    expected: list[str]
    missing: list[str] = field(default_factory=list)


def browser() -> str | None:
    """The headless browser's executable, or None."""
    return next((found for b in BROWSERS if (found := shutil.which(b))), None)


def _chromium(exe: str, url: str, *args: str, budget_ms: int) -> subprocess.CompletedProcess:
    """One headless Chromium call. The UI is a single-page app: the virtual time budget lets
    its scripts fetch and render; ``--timeout`` (real time) stops loading on a machine so busy
    that virtual time never runs out, and the page is taken as it is then. A browser that
    still hangs is killed and tried once more."""
    command = [
        exe,
        "--headless",
        "--no-sandbox",  # CI runs as root
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        "--window-size=1600,1000",
        f"--virtual-time-budget={budget_ms}",
        f"--timeout={4 * budget_ms}",
        *args,
        url,
    ]
    for attempt in range(2):
        try:
            return subprocess.run(command, capture_output=True, text=True, timeout=240)
        except subprocess.TimeoutExpired:
            if attempt:
                raise
    raise AssertionError("unreachable")


def check_page(exe: str, page: PageCheck, budget_ms: int = 20000) -> PageCheck:
    """Screenshot ``page`` and record which expected texts its rendered DOM lacks: one
    Chromium launch does both (the picture and the DOM are of the same render)."""
    page.screenshot.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot.unlink(missing_ok=True)  # an old picture must not pass for this one
    shot = _chromium(
        exe, page.url, f"--screenshot={page.screenshot}", "--dump-dom", budget_ms=budget_ms
    )
    if not page.screenshot.exists():
        page.missing = [f"no screenshot ({shot.stderr.strip()[-200:]})"]
        return page
    page.missing = [text for text in page.expected if text not in shot.stdout]
    return page


def pages_of_run(tracking_uri: str, experiment: str, base_url: str, out: Path) -> list[PageCheck]:
    """The experiment page and the latest top-level run's page, with what each must show."""
    client = MlflowClient(tracking_uri)
    exp = client.get_experiment_by_name(experiment)
    run = latest_top_level(client, exp.experiment_id) if exp else None
    if exp is None or run is None:
        raise LookupError(f"no finished run in experiment {experiment!r} of {tracking_uri}")
    tags = run.data.tags
    datasets = [d.dataset.name for d in run.inputs.dataset_inputs] if run.inputs else []
    some_params = sorted(run.data.params)[:2]
    some_metrics = sorted(run.data.metrics)[:2]
    name = run.info.run_name or ""
    return [
        PageCheck(
            "experiment",
            f"{base_url}/#/experiments/{exp.experiment_id}/runs?{CLASSIC}",
            out / "experiment.png",
            [name, *datasets[:1]],
        ),
        PageCheck(
            "run",
            f"{base_url}/#/experiments/{exp.experiment_id}/runs/{run.info.run_id}?{CLASSIC}",
            out / "run.png",
            [
                name,
                Path(tags.get("mlflow.source.name", "?")).name,  # the UI shows the file name
                *datasets[:1],  # the others fold into "+N"
                *some_params,
                *some_metrics,
            ],
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m sparring.launch.screenshots",
        description="Screenshots of the MLflow UI (experiment and run pages) with checks.",
    )
    parser.add_argument("--tracking-uri", default="sqlite:///mlflow.db")
    parser.add_argument("--experiment", default="evolve")
    parser.add_argument("--out", type=Path, default=Path("data/ui"))
    parser.add_argument("--budget-ms", type=int, default=20000, help="render time per page")
    args = parser.parse_args(argv)
    exe = browser()
    if exe is None:
        print("error: no headless browser: apt-get install chromium", file=sys.stderr)
        return 2
    port = free_port()
    server = subprocess.Popen(
        server_argv(port, args.tracking_uri, command="ui"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env=server_environment(os.environ),
    )
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for(f"{base}/health", 120)
        try:
            pages = pages_of_run(args.tracking_uri, args.experiment, base, args.out)
        except LookupError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        failed = False
        for page in pages:
            check_page(exe, page, args.budget_ms)
            state = "ok" if not page.missing else f"MISSING {page.missing}"
            print(f"{page.name}: {page.screenshot} ({page.url}) {state}")
            failed |= bool(page.missing)
        return 1 if failed else 0
    finally:
        stop_group(server)


if __name__ == "__main__":
    sys.exit(main())
