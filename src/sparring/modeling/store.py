"""The long-term memory: counters in a SQLite database (specs/player_model.md §6).

Tables (schema version in ``PRAGMA user_version``):
- ``player_models``: successes / failures per (player, metric, context) — counts, not
  transcripts;
- ``player_stats`` (v3): games and hands observed per player;
- ``replays`` (v3): a player's *own* view of a game (the events that player could see), the only
  raw events kept, for that player's replay.

Updates are atomic increments (``INSERT ... ON CONFLICT DO UPDATE``) inside ``BEGIN
IMMEDIATE`` transactions, so several processes updating the same player lose nothing.
``open_store`` creates a new file or migrates an older one in place (1 → 2: ``updated_at``;
2 → 3: the statistics and replay tables); a file from newer code is refused.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from sparring.modeling.metrics import METRICS
from sparring.modeling.model import PlayerModel

SCHEMA_VERSION = 3
_MODELS = """
CREATE TABLE IF NOT EXISTS player_models (
    player_id TEXT NOT NULL,
    metric TEXT NOT NULL,
    context TEXT NOT NULL,
    successes REAL NOT NULL DEFAULT 0,
    failures REAL NOT NULL DEFAULT 0,
    updated_at REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (player_id, metric, context)
)"""
_V3 = (
    """CREATE TABLE IF NOT EXISTS player_stats (
        player_id TEXT PRIMARY KEY,
        games INTEGER NOT NULL DEFAULT 0,
        hands INTEGER NOT NULL DEFAULT 0,
        updated_at REAL NOT NULL DEFAULT 0
    )""",
    """CREATE TABLE IF NOT EXISTS replays (
        player_id TEXT NOT NULL,
        game_id TEXT NOT NULL,
        events TEXT NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (player_id, game_id)
    )""",
)


def _key(context: tuple[str, ...]) -> str:
    return "/".join(context)


def _transaction(conn: sqlite3.Connection):
    class _Tx:
        def __enter__(self):
            conn.execute("BEGIN IMMEDIATE")

        def __exit__(self, exc_type, exc, tb):
            conn.execute("ROLLBACK" if exc_type else "COMMIT")
            return False

    return _Tx()


def open_store(path: str | Path) -> sqlite3.Connection:
    """Open (create or migrate) the store at ``path``."""
    conn = sqlite3.connect(str(path), timeout=30, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        conn.close()
        raise ValueError(
            f"{path}: store schema {version} is newer than this code ({SCHEMA_VERSION})"
        )
    with _transaction(conn):  # one migration at a time, even with several processes
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "player_models" not in tables:
            conn.execute(_MODELS)
        elif version <= 1:  # version 1 had no updated_at column
            columns = {r[1] for r in conn.execute("PRAGMA table_info(player_models)")}
            if "updated_at" not in columns:
                conn.execute(
                    "ALTER TABLE player_models ADD COLUMN updated_at REAL NOT NULL DEFAULT 0"
                )
        for statement in _V3:
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    return conn


def add_counts(
    conn: sqlite3.Connection,
    player_id: str,
    rows: Iterable[tuple[str, tuple[str, ...], float, float]],
) -> None:
    """Add (metric, context, successes, failures) to a player's counters, atomically."""
    now = time.time()
    with _transaction(conn):
        conn.executemany(
            "INSERT INTO player_models (player_id, metric, context, successes, failures, "
            "updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (player_id, metric, context) "
            "DO UPDATE SET successes = successes + excluded.successes, "
            "failures = failures + excluded.failures, updated_at = excluded.updated_at",
            [(player_id, m, _key(c), s, f, now) for m, c, s, f in rows],
        )


def add_model(conn: sqlite3.Connection, delta: PlayerModel) -> None:
    """Add a model's counters to the stored ones. Pass the *new* observations (a fresh model
    fed after the last save), not a model loaded from the store, or they count twice."""
    rows = [(m, ctx, s, f) for (m, ctx), (s, f) in delta.counts.items()]
    add_counts(conn, delta.player_id, rows)


def scale_counts(conn: sqlite3.Connection, player_id: str, metric: str, factor: float) -> None:
    """Reduce the confidence of a player's long-term ``metric`` (every context): counters ×
    ``factor`` — what a suspected strategy change does to the long model (§7)."""
    if not 0 <= factor <= 1:
        raise ValueError(f"factor must be in [0, 1], got {factor}")
    with _transaction(conn):
        conn.execute(
            "UPDATE player_models SET successes = successes * ?, failures = failures * ?, "
            "updated_at = ? WHERE player_id = ? AND metric = ?",
            (factor, factor, time.time(), player_id, metric),
        )


def add_game(conn: sqlite3.Connection, player_id: str, hands: int) -> None:
    """Count one more game of ``hands`` hands for the player's statistics."""
    with _transaction(conn):
        conn.execute(
            "INSERT INTO player_stats (player_id, games, hands, updated_at) VALUES (?, 1, ?, ?) "
            "ON CONFLICT (player_id) DO UPDATE SET games = games + 1, "
            "hands = hands + excluded.hands, updated_at = excluded.updated_at",
            (player_id, hands, time.time()),
        )


def save_replay(conn: sqlite3.Connection, player_id: str, game_id: str, events: list) -> None:
    """Keep the events of a game *as that player saw them* for the player's own replay."""
    with _transaction(conn):
        conn.execute(
            "INSERT OR REPLACE INTO replays (player_id, game_id, events, created_at) "
            "VALUES (?, ?, ?, ?)",
            (player_id, game_id, json.dumps(events), time.time()),
        )


def load_replay(conn: sqlite3.Connection, player_id: str, game_id: str) -> list | None:
    row = conn.execute(
        "SELECT events FROM replays WHERE player_id = ? AND game_id = ?", (player_id, game_id)
    ).fetchone()
    return None if row is None else json.loads(row[0])


@functools.lru_cache(maxsize=4096)
def _context_key(context: str) -> tuple[str, ...]:
    """A stored context (``"grande/mano"``) as the model's key; a handful of distinct ones."""
    return tuple(context.split("/")) if context else ()


def load(conn: sqlite3.Connection, player_id: str, k: float = 10.0) -> PlayerModel:
    """``player_id``'s model as stored (a player never seen: an empty model). A validation
    series loads each player's model every game: rows are read in one go, keys shared."""
    model = PlayerModel(player_id, k=k)
    rows = conn.execute(
        "SELECT metric, context, successes, failures, updated_at FROM player_models "
        "WHERE player_id = ?",
        (player_id,),
    ).fetchall()
    model.counts.update(
        {(metric, _context_key(context)): [s, f] for metric, context, s, f, _ in rows}
    )
    model.last_updated = max([model.last_updated, *(row[4] for row in rows)])
    row = conn.execute("SELECT hands FROM player_stats WHERE player_id = ?", (player_id,))
    hands = row.fetchone()
    model.sample_size = int(hands[0]) if hands else 0
    return model


@dataclass(frozen=True)
class MetricView:
    metric: str
    mean: float
    low: float
    high: float
    n: float
    confidence: str


@dataclass(frozen=True)
class ProfileView:
    """The aggregated view of a player for a statistics screen (derived from long-term)."""

    player_id: str
    games: int
    hands: int
    metrics: tuple[MetricView, ...]

    def lines(self) -> list[str]:
        head = f"{self.player_id}: {self.games} games, {self.hands} hands"
        return [head] + [
            f"  {m.metric:<16} {m.mean:.2f}  90% [{m.low:.2f}, {m.high:.2f}]  "
            f"n = {m.n:.0f} ({m.confidence})"
            for m in self.metrics
        ]


def profile_view(conn: sqlite3.Connection, player_id: str) -> ProfileView:
    model = load(conn, player_id)
    row = conn.execute("SELECT games, hands FROM player_stats WHERE player_id = ?", (player_id,))
    games, hands = row.fetchone() or (0, 0)
    views = []
    for metric in METRICS:
        rate = model.estimate(metric)
        low, high = rate.interval(0.9)
        views.append(MetricView(metric, rate.mean(), low, high, rate.n(), rate.confidence()[1]))
    return ProfileView(player_id, int(games), int(hands), tuple(views))
