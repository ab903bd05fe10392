"""The long-term memory: counters in a SQLite table ``player_models`` (specs §6).

Updates are atomic increments (``INSERT ... ON CONFLICT DO UPDATE``) inside a transaction, so
several processes updating the same player lose nothing. The schema is versioned
(``PRAGMA user_version``); ``open_store`` migrates older files in place.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable
from pathlib import Path

from sparring.modeling.model import PlayerModel

SCHEMA_VERSION = 2
_CREATE = """
CREATE TABLE IF NOT EXISTS player_models (
    player_id TEXT NOT NULL,
    metric TEXT NOT NULL,
    context TEXT NOT NULL,
    successes REAL NOT NULL DEFAULT 0,
    failures REAL NOT NULL DEFAULT 0,
    updated_at REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (player_id, metric, context)
)"""


def _key(context: tuple[str, ...]) -> str:
    return "/".join(context)


def open_store(path: str | Path) -> sqlite3.Connection:
    """Open (create or migrate) the store at ``path``."""
    conn = sqlite3.connect(str(path), timeout=30, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == 0:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "player_models" in tables:  # version 1: no updated_at column
            conn.execute("ALTER TABLE player_models ADD COLUMN updated_at REAL NOT NULL DEFAULT 0")
        else:
            conn.execute(_CREATE)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    elif version == 1:
        conn.execute("ALTER TABLE player_models ADD COLUMN updated_at REAL NOT NULL DEFAULT 0")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    elif version > SCHEMA_VERSION:
        raise ValueError(
            f"{path}: store schema {version} is newer than this code ({SCHEMA_VERSION})"
        )
    return conn


def add_counts(
    conn: sqlite3.Connection,
    player_id: str,
    rows: Iterable[tuple[str, tuple[str, ...], float, float]],
) -> None:
    """Add (metric, context, successes, failures) to a player's counters, atomically."""
    now = time.time()
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.executemany(
            "INSERT INTO player_models (player_id, metric, context, successes, failures, "
            "updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (player_id, metric, context) "
            "DO UPDATE SET successes = successes + excluded.successes, "
            "failures = failures + excluded.failures, updated_at = excluded.updated_at",
            [(player_id, m, _key(c), s, f, now) for m, c, s, f in rows],
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def add_model(conn: sqlite3.Connection, delta: PlayerModel) -> None:
    """Add a model's counters to the stored ones. Pass the *new* observations (a fresh model
    fed after the last save), not a model loaded from the store, or they count twice."""
    rows = [(m, ctx, s, f) for (m, ctx), (s, f) in delta.counts.items()]
    add_counts(conn, delta.player_id, rows)


def load(conn: sqlite3.Connection, player_id: str, k: float = 10.0) -> PlayerModel:
    model = PlayerModel(player_id, k=k)
    for metric, context, s, f in conn.execute(
        "SELECT metric, context, successes, failures FROM player_models WHERE player_id = ?",
        (player_id,),
    ):
        key = tuple(context.split("/")) if context else ()
        model.counts[(metric, key)] = [s, f]
    return model
