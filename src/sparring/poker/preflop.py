"""The 169 preflop starting-hand classes and the preflop equity table.

Classes are indexed 0..168: the 13 pairs (AA ... 22), then the 78 suited hands (AKs, AQs, ...,
32s), then the 78 offsuit hands in the same order. The table holds each class's equity against
1..9 random hands; a default table (Monte Carlo, 200,000 outcomes per cell) ships with the
package, and ``pipelines/equity.py`` recomputes it at any precision.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np
import pyarrow as pa

from sparring.poker.cards import RANKS, as_cards
from sparring.poker.catalog import CLASS_INDEX, CLASSES, MAX_TABLE_OPPONENTS
from sparring.poker.equity import EquityResult, equity
from sparring.runtime.storage.datasets import DatasetSpec, read_table
from sparring.runtime.storage.location import Location
from sparring.seeding import task_seed

PREFLOP_SPEC = DatasetSpec(
    name="preflop_equity",
    version=1,
    schema=pa.schema(
        [
            ("class", pa.string()),
            ("index", pa.int16()),
            ("opponents", pa.int8()),
            ("equity", pa.float32()),
            ("stderr", pa.float32()),
            ("trials", pa.int64()),
        ]
    ),
)


def _lookup_grid() -> np.ndarray:
    """grid[hi_rank, lo_rank, suited] -> class index (ranks 0 = '2' ... 12 = 'A')."""
    grid = np.full((13, 13, 2), -1, dtype=np.int16)
    for name, i in CLASS_INDEX.items():
        hi, lo = RANKS.index(name[0]), RANKS.index(name[1])
        if hi == lo:
            grid[hi, lo, 0] = i
        else:
            grid[hi, lo, 1 if name[2] == "s" else 0] = i
    return grid


_GRID = _lookup_grid()


def class_index(holes: np.ndarray) -> np.ndarray:
    """Class index per hole pair, for card arrays of shape (n, 2) (or a single pair)."""
    h = np.asarray(holes, dtype=np.int64).reshape(-1, 2)
    r0, r1 = h[:, 0] // 4, h[:, 1] // 4
    suited = (h[:, 0] % 4 == h[:, 1] % 4).astype(np.int64)
    return _GRID[np.maximum(r0, r1), np.minimum(r0, r1), suited]


def class_of(hole) -> str:
    """The class name ("AKs", "T9o", "77") of two cards given as text or ints."""
    cards = as_cards(hole, what="hole")
    if cards.size != 2:
        raise ValueError(f"a hole pair is two cards, got {cards.size}")
    return CLASSES[int(class_index(cards)[0])]


def representative(name: str) -> np.ndarray:
    """Two concrete cards of a class (equity does not depend on which suits)."""
    if name not in CLASS_INDEX:
        raise ValueError(f"unknown starting-hand class {name!r}; examples: AA, AKs, T9o")
    hi, lo = RANKS.index(name[0]), RANKS.index(name[1])
    if hi == lo:
        return np.array([4 * hi + 3, 4 * lo + 2], dtype=np.uint8)
    return np.array([4 * hi + 3, 4 * lo + (3 if name[2] == "s" else 2)], dtype=np.uint8)


def class_equity(name: str, opponents: int, trials: int, seed: int) -> EquityResult:
    """Monte Carlo equity of a class against ``opponents`` random hands.

    The stream depends only on (seed, class, opponents), so a table is the same however its
    cells are spread over tasks.
    """
    cell_seed = task_seed(seed, "preflop", CLASS_INDEX[name], opponents)
    return equity(representative(name), "", opponents, trials, cell_seed, method="monte_carlo")


def table_from_arrow(table: pa.Table) -> np.ndarray:
    """equity[class_index, opponents] (float32, shape (169, 10), column 0 unused = NaN)."""
    out = np.full((len(CLASSES), MAX_TABLE_OPPONENTS + 1), np.nan, dtype=np.float32)
    idx = table.column("index").to_numpy()
    opp = table.column("opponents").to_numpy()
    out[idx, opp] = table.column("equity").to_numpy()
    return out


def default_table_path() -> Path:
    return Path(str(resources.files("sparring.poker") / "data" / "preflop_equity.parquet"))


@lru_cache(maxsize=4)
def load_table(path: str | Location | None = None) -> np.ndarray:
    """The preflop equity grid from ``path``, or the table shipped with the package."""
    table = read_table(path or default_table_path(), PREFLOP_SPEC)
    grid = table_from_arrow(table)
    if np.isnan(grid[:, 1:]).any():
        raise ValueError(f"{path or default_table_path()}: the preflop table is incomplete")
    return grid


def class_rows(name: str, opponents: tuple[int, ...], trials: int, seed: int) -> list[dict]:
    """One Ray task of the equity pipeline: the cells of one class for every opponent count.
    (Here, not in the pipeline body, so its workers import no MLflow or Hydra.)"""
    rows = []
    for k in opponents:
        r = class_equity(name, k, trials, seed)
        rows.append(
            {
                "class": name,
                "index": CLASS_INDEX[name],
                "opponents": k,
                "equity": r.equity,
                "stderr": r.stderr,
                "trials": r.trials,
            }
        )
    return rows
