"""Compare MLflow runs: one line per run with the params that differ (swept ones first) and
the chosen metrics, fitted to the terminal; or csv/json/markdown for scripts; and a bar plot.

Used by the ``compare`` body (``pipelines.compare``) and ``sparring compare``; reads only (no
new MLflow run). The runs are an experiment's (optionally filtered), one sweep's (``sweep``: the
children of a sweep or search parent, in any experiment) or the runs behind a registered
model's versions (``model``). The table comes from ``mlflow.search_runs``: a short run id and
name per run, the runs of each sweep together under a label (``s1``, named in a note), the
differing params that change what is computed (``runtime.tracking.params.is_infrastructure`` ones
such
as ``ray.address`` or a checkpoint root only with ``all_params``) under short unique names with
a legend, values and metrics to 4 significant digits. The params that tell the most runs apart
come first (swept ones before all); at the terminal's width long headers are abbreviated before
a param is left out, and what is left out is named in a note. A run's name is not shown when it
says only the pipeline and config hash (``evolve 3f2a1c``): the params beside it say more. A
search trial that a resumed search reran is one line, its record (not one per attempt). A
metric that no run has is refused with the closest names. The bar chart goes to ``output_dir``
(a path or storage URI); a run without the metric is marked there, not drawn as 0. Neither Ray
nor an MLflow run: the ``compare`` body stays outside ``frame.session.pipeline_session``,
which opens a run. The queries are ``compare_query``'s; this module ranks, lays out and draws.
"""

from __future__ import annotations

import csv
import io
import json
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mlflow
import pandas as pd
from mlflow.tracking import MlflowClient

from sparring.config.compare import OutputFormat
from sparring.reporting import compare_query as query
from sparring.reporting.console import (
    CELL_FLOOR,
    Column,
    console,
    fit_console,
    print_fitted,
    short_number,
)
from sparring.reporting.plots import grouped_bars
from sparring.runtime.errors import UsageError
from sparring.runtime.storage.location import Location, locate
from sparring.runtime.tracking.params import short_names, short_value

__all__ = ["Comparison", "compare", "short_names", "short_run_name"]


@dataclass
class Comparison:
    # run_id, name, short, plain (the name says only pipeline and config hash), status, sweep,
    # params that differ, metrics
    runs: list[dict[str, Any]]
    differing: list[str]  # swept params first, then those telling the most runs apart
    swept: list[str]
    metrics: list[str]
    legend: dict[str, str]  # column header (as printed) -> full param or metric name
    plot: Location | None
    text: str
    hidden: list[str] = field(default_factory=list)  # differing infrastructure/path params
    sweeps: dict[str, str] = field(default_factory=dict)  # label (s1) -> sweep id or parent name
    left_out: list[str] = field(default_factory=list)  # columns that did not fit the terminal


def short_run_name(name: str, run_id: str) -> str:
    """A run's name without its ``key=value`` overrides and ``+N more`` (the table shows the
    params in their columns): ``evolve 2e47f1 population=8 +3 more`` -> ``evolve 2e47f1``,
    ``trial 3 p_mutation=0.21`` -> ``trial 3``; the run id's first 8 characters if nothing is
    left."""
    words = [w for w in name.split() if "=" not in w]
    if len(words) >= 2 and words[-1] == "more" and words[-2].startswith("+"):
        words = words[:-2]
    return " ".join(words) or run_id[:8]


def plain_name(short: str, run_id: str, pipeline: str, config_hash: str) -> bool:
    """Whether a run's short name (``short_run_name``) says nothing that the table does not:
    its short id, or the default name's pipeline and config hash alone (``evolve 3f2a1c``:
    runs with different params have different hashes, which read as nothing to a person)."""
    return short == run_id[:8] or bool(pipeline and short == f"{pipeline} {config_hash[:6]}")


def telling_apart(frame: pd.DataFrame, keys: list[str]) -> list[str]:
    """``keys`` (params that differ between the runs of ``frame``) ordered by how many runs
    each tells apart: the runs not holding its most common value (a param set differently in
    one run out of twenty comes after the seed set differently in each), then by how many
    values it takes, then by name."""

    def key(name: str) -> tuple[int, int, str]:
        counts = frame[f"params.{name}"].fillna("").astype(str).value_counts()
        return (-(len(frame) - int(counts.iloc[0])), -len(counts), name)

    return sorted(keys, key=key)


def _ordered(
    runs: list[dict[str, Any]], metric: str, ascending: bool = False
) -> list[dict[str, Any]]:
    """The runs of each sweep together (a parent in the table with its children): the groups
    by their best ``metric``, each group's runs by ``metric`` (best first: descending, or
    ``ascending``; no value last)."""

    def key(run: dict[str, Any]) -> tuple[bool, float]:
        value = run["metrics"][metric] or 0.0
        return (run["metrics"][metric] is None, value if ascending else -value)

    groups: dict[str, list[dict[str, Any]]] = {}
    for r in sorted(runs, key=key):
        groups.setdefault(r["parent_run_id"] or r["run_id"], []).append(r)
    return [r for group in groups.values() for r in group]


def compare(
    uri: str,
    experiment: str | None,
    metric: str,
    metrics: list[str] | None = None,
    filter_string: str = "",
    max_runs: int = 20,
    output_dir: str | Path | Location = "data/compare",
    sweep: str | None = None,
    model: str | None = None,
    output_format: str | OutputFormat = OutputFormat.table,
    all_params: bool = False,
    order: str = "auto",
) -> Comparison:
    """Rank runs by ``metric``, best first, and show what differs between them.

    ``order`` ``desc`` or ``asc``; ``auto``: the direction of the pipeline's objective when
    ``metric`` is it (a run's params ``objective`` and ``direction``: equity's ``mean_stderr``
    is minimised), else descending.

    The runs are ``sweep``'s children (a sweep or search id) or the runs behind ``model``'s
    registered versions, in whatever experiment they are; without either, ``experiment``'s.
    ``output_format`` ``table`` prints one line per run fitted to the terminal with its notes;
    ``csv``, ``json`` and ``markdown`` print only the data (full ids, names and values in csv
    and json) and say where the plot went on stderr. ``all_params`` also shows differing
    infrastructure and path params. Returns what it printed and the plot."""
    fmt = OutputFormat(output_format)
    if sweep is not None or model is not None:
        experiment = None  # the sweep id or the model says which runs
    elif experiment is None:
        raise UsageError("name an experiment, a sweep (--sweep ID) or a model (--model NAME)")
    mlflow.set_tracking_uri(uri)
    client = MlflowClient(tracking_uri=uri)
    clauses = [filter_string] if filter_string.strip() else []
    if sweep is not None:
        clauses.append(f"tags.sweep_id = '{sweep}'")
    labels: dict[str, str] = {}
    if model is not None:
        labels = query.model_runs(client, model)
        clauses.append(f"attributes.run_id IN ({', '.join(repr(r) for r in labels)})")
    where = f"in experiment {experiment!r}" if experiment else "found"
    if sweep is not None:
        where += f" of sweep {sweep!r}"
    if model is not None:
        where += f" behind model {model!r}"
    ascending = query.is_ascending(client, experiment, metric, order)
    frame = query.search_runs(
        client, experiment, " and ".join(clauses), metric, max_runs, experiment is None, ascending
    )
    if frame.empty:
        raise UsageError(f"no runs {where} match filter {filter_string!r}")
    wanted = [metric, *[m for m in (metrics or []) if m != metric]]
    query.check_metrics(frame, wanted, where)

    params = sorted(c[len("params.") :] for c in frame.columns if c.startswith("params."))
    varying = [k for k in params if frame[f"params.{k}"].fillna("").astype(str).nunique() > 1]
    hidden = [] if all_params else [k for k in varying if query.about_infrastructure(frame, k)]
    parents = query.parents(client, frame)
    swept = list(dict.fromkeys(k for _, keys in parents.values() for k in keys))
    swept = [k for k in swept if k in varying and k not in hidden]
    others = telling_apart(frame, [k for k in varying if k not in swept and k not in hidden])
    differing = swept + others
    runs = []
    for _, row in frame.iterrows():
        run_id = str(row["run_id"])
        name = labels.get(run_id) or str(row.get("tags.mlflow.runName") or run_id[:8])
        parent = query.cell_text(row.get(query.PARENT_COLUMN)) or None
        short = labels.get(run_id) or short_run_name(name, run_id)
        pipeline = query.cell_text(row.get("tags.pipeline"))
        digest = query.cell_text(row.get("tags.config_hash"))
        runs.append(
            {
                "run_id": run_id,
                "name": name,
                "short": short,
                "plain": plain_name(short, run_id, pipeline, digest),
                "status": row["status"],
                "parent_run_id": parent,
                "sweep": parents[parent][0] if parent else None,
                "params": {k: query.cell_text(row.get(f"params.{k}")) for k in differing},
                "metrics": {m: query.cell_number(row.get(f"metrics.{m}")) for m in wanted},
            }
        )
    runs = _ordered(runs, metric, ascending)
    for i, r in enumerate(runs):
        r["rank"] = i + 1
    # sweeps labelled s1, s2, ... in the order the table shows them
    shown_sweeps = dict.fromkeys(r["parent_run_id"] for r in runs if r["parent_run_id"])
    sweeps = {pid: f"s{i + 1}" for i, pid in enumerate(shown_sweeps)}
    for r in runs:
        r["label"] = sweeps.get(r["parent_run_id"] or "", "")
    title = experiment or (f"sweep {sweep}" if sweep else f"model {model}")
    headers = short_names(differing)
    comparison = Comparison(
        runs,
        differing,
        swept,
        wanted,
        {headers[k]: k for k in differing if headers[k] != k},
        None,
        "",
        hidden,
        {sweeps[pid]: parents[pid][0] for pid in sweeps},
    )
    if fmt is OutputFormat.table:
        comparison.text = _print_terminal(comparison, sweeps, headers, title, metric)
    else:
        comparison.text = _render(comparison, fmt, headers, sweeps)
        sys.stdout.write(comparison.text)
    comparison.plot = _plot(runs, metric, title, output_dir, quiet=fmt is not OutputFormat.table)
    return comparison


def _cells(run: dict[str, Any], cmp: Comparison, sweeps: dict[str, str]) -> list[str]:
    """A run's cells as a person reads them: rank, short id, sweep label, short name, status,
    the params to 4 significant digits, the metrics (``-``: not logged)."""
    return [
        str(run["rank"]),
        run["run_id"][:8],
        run["label"],
        run["short"],
        "" if run["status"] == "FINISHED" else str(run["status"]),
        *[short_value(run["params"][k]) for k in cmp.differing],
        *[short_number(run["metrics"][m]) for m in cmp.metrics],
    ]


def _print_terminal(
    cmp: Comparison, sweeps: dict[str, str], headers: dict[str, str], title: str, metric: str
) -> str:
    """Print the title, one line per run fitted to the terminal and the notes; return them.

    The sweep and status columns appear only when they tell runs apart (status also when
    every run ended the same way but not FINISHED); the run column only when a name says more
    than the pipeline and config hash (``plain_name``). The params are taken in
    ``cmp.differing``'s order while they fit, headers abbreviated if need be (``fit_widths``);
    the legend names in full every header shown short or abbreviated. Sets ``cmp.legend`` and
    ``cmp.left_out`` to what was printed."""
    width = fit_console()
    columns = [
        Column("#", right=True),
        Column("id"),
        Column("sweep"),
        Column("run", limit=40, shrink=13),
        Column("status"),
        *[
            Column(
                headers[k],
                drop=True,
                shrink=CELL_FLOOR,
                abbreviate=True,
                mark=" *" if k in cmp.swept else "",
            )
            for k in cmp.differing
        ],
        *[Column(m, right=True, abbreviate=True) for m in cmp.metrics],
    ]
    full = ["", "", "", "", "", *cmp.differing, *cmp.metrics]  # a header's full name
    rows = [_cells(r, cmp, sweeps) for r in cmp.runs]
    # the sweep, run and status columns only when they tell runs apart
    empty = [2] if len({row[2] for row in rows}) < 2 else []
    empty += [3] if all(r["plain"] for r in cmp.runs) else []
    empty += [4] if {row[4] for row in rows} == {""} else []
    columns = [c for i, c in enumerate(columns) if i not in empty]
    full = [c for i, c in enumerate(full) if i not in empty]
    rows = [[c for i, c in enumerate(row) if i not in empty] for row in rows]
    # a rule between two groups (a sweep's runs, or a run outside any sweep)
    group = [r["parent_run_id"] or r["run_id"] for r in cmp.runs]
    sections = [i for i in range(len(group) - 1) if group[i] != group[i + 1] and sweeps]
    heading = f"{title}: {len(cmp.runs)} run{'s' * (len(cmp.runs) != 1)} by {metric}"
    console.print(heading, markup=False, highlight=False)
    fitted = print_fitted(columns, rows, sections, width)
    cmp.left_out = fitted.left_out
    # the legend names only the columns on screen, each mapping one word (wrapped whole)
    cmp.legend = {}
    for column, shown, name in zip(columns, fitted.shown, full, strict=True):
        header = shown.removesuffix(column.mark)
        if shown and name and header != name:
            cmp.legend[header] = name
    notes = []
    if cmp.legend:
        notes.append("columns: " + "; ".join(f"{h}={k}" for h, k in cmp.legend.items()))
    if any(c.mark and shown for c, shown in zip(columns, fitted.shown, strict=True)):
        notes.append("* swept by its sweep")
    if "sweep" in fitted.shown:
        for label, name in cmp.sweeps.items():
            notes.append(f"sweep {label} = {name}")
    if cmp.left_out:
        notes.append(
            f"not shown in {width} columns: {', '.join(cmp.left_out)}; "
            "a wider terminal or --format csv shows them"
        )
    if cmp.hidden:
        notes.append(
            f"differing but about where things run or go: {', '.join(cmp.hidden)}; "
            "shown with --all-params (params=all)"
        )
    if any(run["metrics"][m] is None for run in cmp.runs for m in cmp.metrics):
        notes.append("- = the run did not log this metric")  # only where a "-" is shown
    for note in notes:
        console.print(note, markup=False, highlight=False)
    return heading + "\n" + fitted.text + "\n".join(notes) + "\n"


def _render(
    cmp: Comparison, fmt: OutputFormat, headers: dict[str, str], sweeps: dict[str, str]
) -> str:
    """The comparison for a script: csv or json (full run ids, names, param values and metric
    values, params under their full names; ``null``/empty = not logged) or a markdown table
    (the terminal's cells, nothing cut)."""
    if fmt is OutputFormat.json:
        keys = ["rank", "run_id", "name", "status", "sweep", "parent_run_id", "params", "metrics"]
        data = {
            "metric": cmp.metrics[0],
            "swept": cmp.swept,
            "hidden": cmp.hidden,
            "runs": [{k: r[k] for k in keys} for r in cmp.runs],
        }
        return json.dumps(data, indent=2) + "\n"
    if fmt is OutputFormat.csv:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["rank", "run_id", "name", "status", "sweep", *cmp.differing, *cmp.metrics])
        for r in cmp.runs:
            writer.writerow(
                [r["rank"], r["run_id"], r["name"], r["status"], r["sweep"] or ""]
                + [r["params"][k] for k in cmp.differing]
                + ["" if r["metrics"][m] is None else repr(r["metrics"][m]) for m in cmp.metrics]
            )
        return out.getvalue()
    header = ["#", "id", "sweep", "run", "status"]
    header += [headers[k] + (" *" if k in cmp.swept else "") for k in cmp.differing]
    header += cmp.metrics
    lines = [header, ["---:" if h == "#" or h in cmp.metrics else "---" for h in header]]
    lines += [_cells(r, cmp, sweeps) for r in cmp.runs]
    return "".join(
        "| " + " | ".join(c.replace("|", "\\|") for c in line) + " |\n" for line in lines
    )


def _plot(
    runs: list[dict[str, Any]],
    metric: str,
    title: str,
    output_dir: str | Path | Location,
    quiet: bool = False,
) -> Location:
    """The bar chart of ``metric`` per run (labelled ``#rank id name``, the table's order),
    written to ``output_dir`` (a path or storage URI); a run without the metric has no bar but
    an "x" marked "no value". ``quiet``: say where it went on stderr, not stdout."""
    plot = locate(output_dir) / f"{title.replace(' ', '-')}-{metric}.png".replace("/", "_")
    with tempfile.TemporaryDirectory() as tmp:
        drawn = grouped_bars(
            Path(tmp) / plot.name,
            [
                f"#{r['rank']} {r['run_id'][:8]} {r['label']} {short_value(r['short'], 24)}"
                for r in runs
            ],
            {metric: [r["metrics"][metric] for r in runs]},
            f"{title}: {metric} by run",
            metric,
            "run (# = row in the table)",
        )
        plot.write_bytes(drawn.read_bytes())
    if quiet:
        print(f"plot: {plot.display()}", file=sys.stderr)
    else:
        console.print(f"[bold]plot:[/bold] {plot.display()}", soft_wrap=True)  # whole path
    return plot
