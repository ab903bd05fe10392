"""Small PNG plots for MLflow artifacts (matplotlib, no display needed)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


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


def grouped_bars(
    path: str | Path,
    groups: Sequence[str],
    series: Mapping[str, Sequence[float]],
    title: str,
    ylabel: str,
    xlabel: str,
    reference: tuple[float, str] | None = None,
) -> Path:
    """Bars per group, one colour per series, every series in the legend; ``reference``
    (value, label) draws a dashed horizontal line that the legend names. Returns the path."""
    import numpy as np

    fig, ax = plt.subplots(figsize=(max(7, 1.2 * len(groups) + 2), 4.5), dpi=100)
    width = 0.8 / max(1, len(series))
    x = np.arange(len(groups))
    for i, (name, ys) in enumerate(series.items()):
        ax.bar(x + i * width - 0.4 + width / 2, list(ys), width, label=name)
    ax.set_xticks(x, list(groups), rotation=20, ha="right", fontsize=8)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if reference is not None:
        ax.axhline(reference[0], color="grey", lw=0.8, ls="--", label=reference[1])
    ax.legend(fontsize=7)
    fig.tight_layout()
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
