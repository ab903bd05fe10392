"""Matches between searchers, and Elo from the results.

A game between two searchers is deterministic given its seed: the seed picks the first
``opening_plies`` moves at random (so a series explores different games), then each side plays
its searcher's move (fixed depth, or a time budget).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sparring.flagbots.engine import Engine
from sparring.flagbots.game import Position
from sparring.flagbots.rules import FlagBotsConfig
from sparring.flagbots.searchers import EngineSettings
from sparring.seeding import task_rng


@dataclass(frozen=True)
class GameResult:
    south: str
    north: str
    seed: int
    result: int  # +1 South wins, 0 draw, -1 North wins
    reason: str
    plies: int


def play_game(
    cfg: FlagBotsConfig,
    south: EngineSettings,
    north: EngineSettings,
    seed: int,
    depth: dict[str, int] | None = None,
    opening_plies: int = 2,
) -> GameResult:
    """One game; ``depth[name]`` fixes a searcher's depth (else its time budget is used)."""
    pos = Position(cfg)
    engines = (Engine(cfg, south), Engine(cfg, north))
    rng = task_rng(seed, "opening", south.name, north.name)
    while not pos.is_terminal():
        if pos.ply < opening_plies:
            move = int(rng.choice(pos.legal_actions()))
        else:
            engine = engines[pos.current_player()]
            d = (depth or {}).get(engine.cfg.name)
            result = engine.search(pos.st, depth=d, time_s=None if d else -1.0)
            move = result.move
        pos.apply_action(move)
    return GameResult(south.name, north.name, seed, pos.returns()[0], pos.reason, pos.ply)


def elo_from_score(wins: int, draws: int, losses: int) -> tuple[float, float, float]:
    """Elo difference implied by a score, with a 95% interval (normal approximation)."""
    n = wins + draws + losses
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    s = (wins + 0.5 * draws) / n
    half = 1.96 * math.sqrt(max(s * (1 - s), 0.25 / n) / n)

    def elo(x: float) -> float:
        x = min(max(x, 0.5 / n), 1 - 0.5 / n)  # keep a clean sweep finite
        return -400.0 * math.log10(1.0 / x - 1.0)

    return elo(s), elo(s - half), elo(s + half)


def standings(games: list[GameResult], names: list[str]) -> list[dict]:
    """Per searcher: wins, draws, losses against the field, score and Elo (with 95% CI)."""
    rows = []
    for name in names:
        w = d = lo = 0
        for g in games:
            if name not in (g.south, g.north) or g.south == g.north:
                continue
            mine = g.result if g.south == name else -g.result
            w += mine > 0
            d += mine == 0
            lo += mine < 0
        elo, low, high = elo_from_score(w, d, lo)
        n = w + d + lo
        rows.append(
            {
                "searcher": name,
                "wins": w,
                "draws": d,
                "losses": lo,
                "score": (w + 0.5 * d) / n if n else float("nan"),
                "elo": elo,
                "elo_low": low,
                "elo_high": high,
            }
        )
    return rows


def pairings(names: list[str], seeds: int) -> list[tuple[str, str, int]]:
    """Every pair in both colours, ``seeds`` games each way."""
    return [
        (a, b, s)
        for i, a in enumerate(names)
        for b in names[i + 1 :]
        for s in range(seeds)
        for a, b in ((a, b), (b, a))
    ]


__all__ = ["GameResult", "elo_from_score", "pairings", "play_game", "standings"]
