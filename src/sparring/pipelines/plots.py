"""Small PNG plots for MLflow artifacts (matplotlib, no display needed)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

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
