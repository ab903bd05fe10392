"""``sparring results``: one line per pipeline — its latest run and headline numbers.

The end of ``make run`` prints this table so the whole chain's outcome is visible at once;
the details stay in MLflow (each pipeline's run, artifacts and the ``compare`` command).
"""

from __future__ import annotations

import fnmatch

from mlflow.tracking import MlflowClient

from sparring.pipelines.report import print_table

# Headline metrics per pipeline (experiment name), as MLflow names or fnmatch patterns.
HEADLINES: dict[str, tuple[str, ...]] = {
    "equity": ("trials_per_s",),
    "handgen": ("deals_per_s", "flop_filter_rejection_rate"),
    "evolve": ("champion_bb100", "generations_per_min"),
    "validate": ("error_slope", "coverage", "drift/delay_median", "edge/heavy_bluffer"),
    "search_bench": ("depth_in_*/full", "nps_start/full"),
    "eleusis_bench": (
        "spike_alpha_0.5/100/kl_ucb/mean_guesses",
        "spike_alpha_0.5/100/kl_ucb/minus_baseline",
        "spike_alpha_0.5/100/oracle/mean_guesses",
    ),
    "retrain": ("edge_bb100", "promoted"),
}


def _pick(metrics: dict[str, float], patterns: tuple[str, ...]) -> list[str]:
    shown = []
    for pattern in patterns:
        for name in sorted(fnmatch.filter(metrics, pattern))[:1]:
            value = metrics[name]
            shown.append(f"{name} {value:,.3g}" if abs(value) < 1000 else f"{name} {value:,.0f}")
    return shown


def results(tracking_uri: str = "sqlite:///mlflow.db") -> str:
    """Print (and return) the latest finished run of every pipeline with its headlines."""
    client = MlflowClient(tracking_uri)
    rows = []
    for name, patterns in HEADLINES.items():
        experiment = client.get_experiment_by_name(name)
        if experiment is None:
            continue
        runs = client.search_runs(
            [experiment.experiment_id],
            "attributes.status = 'FINISHED'",
            order_by=["attributes.start_time DESC"],
            max_results=1,
        )
        if runs:
            run = runs[0]
            rows.append([name, run.info.run_id[:8], "; ".join(_pick(run.data.metrics, patterns))])
    if not rows:
        print(f"no finished pipeline runs in {tracking_uri}")
        return ""
    return print_table(f"Latest results ({tracking_uri})", ["pipeline", "run", "headline"], rows)
