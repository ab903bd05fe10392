"""Small PNG plots for MLflow artifacts (matplotlib, no display needed)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure


def line_plot(
    path: str | Path,
    x: Sequence[float],
    series: Mapping[str, Sequence[float]],
    title: str,
    xlabel: str,
    ylabel: str,
    loglog: bool = False,
) -> Path:
    """Write a line plot of each named series against ``x`` (log-log axes with ``loglog``);
    returns the path."""
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    if loglog:
        ax.set_xscale("log")
        ax.set_yscale("log")
    for name, ys in series.items():
        ax.plot(list(x), list(ys), marker="o", markersize=3, label=name)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return Path(path)


def bars_figure(
    groups: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    title: str,
    ylabel: str,
    xlabel: str,
    reference: tuple[float, str] | None = None,
) -> Figure:
    """The figure of ``grouped_bars``: bars per group, one colour per series, every series in
    the legend. A missing value (None or NaN) draws no bar: an "x" on the axis in the series'
    colour, annotated "no value" (a run that failed is not a run that scored 0). Labels longer
    than a bar's room are set upright, so neighbours never overlap."""
    import numpy as np

    longest = max((len(g) for g in groups), default=0)
    upright = longest > 12
    fig, ax = plt.subplots(
        figsize=(max(7.0, (0.45 if upright else 1.2) * len(groups) + 2), 4.5 + 0.06 * longest),
        dpi=100,
    )
    width = 0.8 / max(1, len(series))
    x = np.arange(len(groups))
    missing_named = False
    for i, (name, ys) in enumerate(series.items()):
        at = x + i * width - 0.4 + width / 2
        values = np.array([np.nan if v is None else float(v) for v in ys])
        drawn = np.flatnonzero(np.isfinite(values))
        ax.bar(at[drawn], values[drawn], width, label=name, color=f"C{i}")
        absent = np.flatnonzero(~np.isfinite(values))
        if len(absent):
            colour = f"C{i}"
            label = None if missing_named else "x = no value"
            ax.plot(at[absent], [0.0] * len(absent), "x", color=colour, ms=8, label=label)
            missing_named = True
            for j in absent:
                ax.annotate(
                    "no value",
                    (at[j], 0.0),
                    xytext=(0, 6),
                    textcoords="offset points",
                    rotation=90,
                    ha="center",
                    va="bottom",
                    fontsize=7,
                )
    if upright:
        ax.set_xticks(x, list(groups), rotation=90, ha="center", fontsize=8)
    else:
        ax.set_xticks(x, list(groups), fontsize=8)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if reference is not None:
        ax.axhline(reference[0], color="grey", lw=0.8, ls="--", label=reference[1])
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def grouped_bars(
    path: str | Path,
    groups: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    title: str,
    ylabel: str,
    xlabel: str,
    reference: tuple[float, str] | None = None,
) -> Path:
    """Write ``bars_figure`` (bars per group and series; a missing value marked "no value",
    never drawn as 0; ``reference`` (value, label) a dashed line the legend names) as a PNG;
    returns the path."""
    fig = bars_figure(groups, series, title, ylabel, xlabel, reference)
    fig.savefig(path)
    plt.close(fig)
    return Path(path)


def heatmap(
    path: str | Path,
    labels: Sequence[str],
    matrix: Any,
    title: str,
    value_label: str,
) -> Path:
    """A square matrix (row vs column) with each cell's value written in it, a colour bar named
    ``value_label`` and both axes labelled; returns the path."""
    import numpy as np

    data = np.asarray(matrix, dtype=float)
    n = len(labels)
    fig, ax = plt.subplots(figsize=(1.0 * n + 3, 0.8 * n + 2), dpi=100)
    bound = float(np.nanmax(np.abs(data))) if np.isfinite(data).any() else 1.0
    image = ax.imshow(data, cmap="RdBu", vmin=-bound, vmax=bound)
    ax.set_xticks(range(n), list(labels), rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(n), list(labels), fontsize=8)
    ax.set_xlabel("opponent (column)")
    ax.set_ylabel("entrant (row)")
    for i in range(n):
        for j in range(n):
            if np.isfinite(data[i, j]):
                ax.text(j, i, f"{data[i, j]:+.0f}", ha="center", va="center", fontsize=7)
    fig.colorbar(image, ax=ax, label=value_label)
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return Path(path)
