"""``sparring results`` and ``sparring retrain history``: the record at a glance.

The end of ``make run`` prints the results table so the whole chain's outcome is visible at
once; the details stay in MLflow (each pipeline's run, artifacts and the ``compare`` command).
"""

from __future__ import annotations

import datetime as dt
import fnmatch

from mlflow.entities import Run
from mlflow.tracking import MlflowClient

from sparring.champions.decisions import decisions
from sparring.reporting.console import print_table
from sparring.reporting.runs import latest_top_level
from sparring.runtime.redact import redact_url

# Headline metrics per pipeline (experiment name), as MLflow names or fnmatch patterns.
HEADLINES: dict[str, tuple[str, ...]] = {
    "equity": ("trials_per_s",),
    "handgen": ("deals_per_s", "flop_filter_rejection_rate"),
    "evolve": ("champion_bb100", "generations_per_min"),
    "validate": ("error_slope", "coverage", "drift/delay_median", "edge/heavy_bluffer"),
    "flagbots_bench": ("depth_in_*/full", "nps_start/full"),
    "eleusis_bench": (
        "spike_alpha_0.5/100/kl_ucb/mean_guesses",
        "spike_alpha_0.5/100/kl_ucb/minus_baseline",
        "spike_alpha_0.5/100/oracle/mean_guesses",
    ),
    "retrain": ("edge_bb100", "edge_low", "promoted", "league_rating"),
    "league": ("entrants", "pairs_played", "pairs_cached"),
    "arena": ("pair/*/score", "games", "forfeits"),
}
CLAIM_TAG = "claim.driver"  # registered models that are retrain claims, not champions


def _pick(metrics: dict[str, float], patterns: tuple[str, ...]) -> list[str]:
    shown = []
    for pattern in patterns:
        for name in sorted(fnmatch.filter(metrics, pattern))[:1]:
            value = metrics[name]
            shown.append(f"{name} {value:,.3g}" if abs(value) < 1000 else f"{name} {value:,.0f}")
    return shown


def champions(client: MlflowClient) -> list[list[str]]:
    """Rows (model, alias, version, source run) for every alias of every registered model, then
    its newest version when that holds no alias (``(no alias)``, ``v4 (newest)``): an ad-hoc
    evolve registers a version without replacing the champion, and must not read as one."""
    rows = []
    for model in client.search_registered_models():
        if CLAIM_TAG in (model.tags or {}):
            continue
        aliases = model.aliases or {}
        for alias, version in sorted(aliases.items()):
            rows.append(
                [model.name, f"@{alias}", f"v{version}", _source(client, model.name, version)]
            )
        versions = client.search_model_versions(f"name = '{model.name}'")
        newest = max((int(v.version) for v in versions), default=None)
        if newest is not None and str(newest) not in {str(v) for v in aliases.values()}:
            source = _source(client, model.name, newest)
            rows.append([model.name, "(no alias)", f"v{newest} (newest)", source])
    return rows


def _source(client: MlflowClient, model: str, version: object) -> str:
    """The short id of the run a version was registered from (``-`` when none)."""
    return (client.get_model_version(model, str(version)).run_id or "-")[:8]


def results(tracking_uri: str = "sqlite:///mlflow.db") -> str:
    """Print (and return) the latest finished top-level run of every pipeline with its
    headlines, then the registered champions."""
    client = MlflowClient(tracking_uri)
    rows = []
    for name, patterns in HEADLINES.items():
        experiment = client.get_experiment_by_name(name)
        if experiment is None:
            continue
        run = latest_top_level(client, experiment.experiment_id)
        if run is not None:
            rows.append([name, run.info.run_id[:8], "; ".join(_pick(run.data.metrics, patterns))])
    if not rows:
        print(f"no finished pipeline runs in {redact_url(tracking_uri)}")
        return ""
    title = f"Latest results ({redact_url(tracking_uri)})"
    text = print_table(title, ["pipeline", "run", "headline"], rows)
    held = champions(client)
    if held:
        text += print_table("Registered champions", ["model", "alias", "version", "run"], held)
    return text


def _when(run: Run) -> str:
    return dt.datetime.fromtimestamp(run.info.start_time / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M")


def retrain_history(
    tracking_uri: str = "sqlite:///mlflow.db", experiment: str = "retrain", model: str | None = None
) -> str:
    """Print (and return) every decided retrain, newest first, with its edge and interval."""
    client = MlflowClient(tracking_uri)
    runs = decisions(client, experiment, model)
    if not runs:
        print(f"no retrain decisions in experiment {experiment!r} of {redact_url(tracking_uri)}")
        return ""
    rows = []
    for run in runs:
        m, tags = run.data.metrics, run.data.tags
        level = m.get("confidence", 0.95)
        interval = (
            f"[{m['edge_low']:+.2f}, {m['edge_high']:+.2f}]"
            if "edge_high" in m
            else f"[{m.get('edge_low', float('nan')):+.2f}, ?]"
        )
        new = tags.get("new_version")
        rows.append(
            [
                _when(run),
                tags.get("retrain_id", "?"),
                tags.get("model_name", "?"),
                tags["decision"],
                f"{m.get('edge_bb100', float('nan')):+.2f}",
                # two one-sided bounds at `level` (the rule reads the lower one): together a
                # (2 level - 1) two-sided interval, 90% at the default 95%
                f"{interval} ({2 * level - 1:.0%} two-sided)",
                f"v{tags.get('champion_version', '?')}" + (f" -> v{new}" if new else ""),
                run.info.run_id[:8],
            ]
        )
    return print_table(
        f"Retrain decisions ({experiment}, {redact_url(tracking_uri)})",
        ["started (UTC)", "id", "model", "decision", "edge bb/100", "interval", "champion", "run"],
        rows,
    )
