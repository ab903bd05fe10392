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
) -> Path:
    """Write a line plot of each named series against ``x``; returns the path."""
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
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
