"""What a finished search leaves: the trial table, the best config as an override file, the
objective-per-trial plot and the parameter importances."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from sparring.config.best_files import KEYS_LINE
from sparring.config.tune import ParamSpace
from sparring.runtime.storage.sealed import seal
from sparring.tuning.space import nested, optuna_distributions


@dataclass
class TrialRecord:
    """One trial as the search ended it."""

    number: int
    trial_id: str
    params: dict[str, Any]
    objective: float | None  # the last reported value (a stopped trial's is intermediate)
    state: str  # finished | stopped | failed | unfinished
    step: int = 0
    metrics: dict[str, float] = field(default_factory=dict)


def best(trials: Sequence[TrialRecord], maximize: bool) -> TrialRecord | None:
    """The best finished trial (stopped ones never win: their numbers are mid-run)."""
    done = [t for t in trials if t.state == "finished" and t.objective is not None]
    if not done:
        return None
    sign = 1.0 if maximize else -1.0
    return max(done, key=lambda t: (sign * (t.objective or 0.0), -t.number))


def write_best(
    path: Path, fixed: Mapping[str, Any], record: TrialRecord, search_id: str, objective: str
) -> Path:
    """``conf/best/<search-id>.yaml``: a Hydra override file (``+best=<search-id>``) holding
    ``fixed`` (the keys every trial set: ``target.best_keys``) and the best trial's sampled
    ones, so it composes the config that trial ran. Written atomically and sealed
    (``runtime.storage.sealed``), naming its search and the keys it must hold: a run given a file
    cut
    short or changed since, another search's file under this name, or one missing a key, is
    refused in one line (``config.best_files``)."""
    keys = {**fixed, **record.params}
    body = OmegaConf.to_yaml(OmegaConf.create(nested(keys)))
    text = (
        "# @package _global_\n"
        f"# best of search {search_id}: {objective} = {record.objective:+.6g} "
        f"(trial {record.number})\n"
        f"{KEYS_LINE}{','.join(sorted(keys))}\n{body}"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(seal(text))
    os.replace(tmp, path)
    return path


def importances(
    trials: Sequence[TrialRecord], space: Mapping[str, ParamSpace], maximize: bool
) -> dict[str, float]:
    """Optuna's parameter importances (fANOVA) over the finished trials; {} with fewer than
    two finished trials or when every objective is the same."""
    import optuna

    done = [t for t in trials if t.state == "finished" and t.objective is not None]
    values = {t.objective for t in done}
    if len(done) < 2 or len(values) < 2:
        return {}
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    distributions = optuna_distributions(space)
    study = optuna.create_study(direction="maximize" if maximize else "minimize")
    for t in done:
        params = {k: v for k, v in t.params.items() if k in distributions}
        study.add_trial(
            optuna.trial.create_trial(
                params=params,
                distributions={k: distributions[k] for k in params},
                value=float(t.objective or 0.0),
            )
        )
    scores = optuna.importance.get_param_importances(study)
    return {k: float(v) for k, v in scores.items()}


def objective_plot(
    path: Path, trials: Sequence[TrialRecord], objective: str, maximize: bool
) -> Path:
    """Each trial's objective against its number (finished dots, stopped crosses with their
    last value) and the best so far."""
    from sparring.reporting.plots import plt

    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    ordered = sorted(trials, key=lambda t: t.number)
    for state, marker in (("finished", "o"), ("stopped", "x")):
        pts = [(t.number, t.objective) for t in ordered if t.state == state and t.objective]
        if pts:
            label = "finished" if state == "finished" else "stopped early (last value)"
            ax.scatter([p[0] for p in pts], [p[1] for p in pts], marker=marker, label=label)
    running, xs, ys = None, [], []
    for t in ordered:
        if t.state == "finished" and t.objective is not None:
            better = running is None or (
                t.objective > running if maximize else t.objective < running
            )
            running = t.objective if better else running
        if running is not None:
            xs.append(t.number)
            ys.append(running)
    if xs:
        ax.step(xs, ys, where="post", color="black", linewidth=1, label="best so far")
    ax.set_title(f"{objective} per trial")
    ax.set_xlabel("trial")
    ax.set_ylabel(objective)
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def importance_plot(path: Path, scores: Mapping[str, float]) -> Path:
    """Horizontal bars, most important on top."""
    from sparring.reporting.plots import plt

    items = sorted(scores.items(), key=lambda kv: kv[1])
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(items) + 1.5), dpi=100)
    ax.barh([k for k, _ in items], [v for _, v in items])
    ax.set_title("Parameter importance (fANOVA over finished trials)")
    ax.set_xlabel("share of the objective's variance")
    ax.grid(alpha=0.3, axis="x")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def fmt(value: float | None) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value:+.4g}"
