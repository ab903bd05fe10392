"""Controlled scenarios on synthetic players (specs/player_model.md §10): the cells of the
``validate`` pipeline, each a plain function of its parameters and a seed.

- ``reference``: the realised rates of a profile over many hands — the truth the estimates are
  scored against (a synthetic player's rates hold exactly only where its probabilities do not
  saturate, so the truth is measured, not assumed);
- ``estimation``: the model after n hands of the observed player: estimate, 90% interval;
- ``separation``: two profiles observed in the same games: distance between their posteriors;
- ``drift``: a player that shifts after S hands (or never): alarms of the server's monitor;
- ``match``: ModelingBot (or the control) against a profile over a series of games, with the
  post-game cycle on a real SQLite store between games.

The observed player sits at seat 1; the other seats are middle-of-the-road synthetic players
(``match`` puts the bots at seats 0 and 2 and the profile at 1 and 3). Players persist across
matches, so ``shift_after`` counts hands over the whole series.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sparring.modeling.bot import MONITORED, ModelingBot
from sparring.modeling.calibration import CalibrationLog
from sparring.modeling.cycle import ModelServer
from sparring.modeling.drift import DriftConfig, DriftMonitor, js_divergence
from sparring.modeling.metrics import observations
from sparring.modeling.model import PlayerModel
from sparring.mus.engine import MusConfig, MusGame
from sparring.mus.log import Decision, play_match
from sparring.mus.players import Player, SyntheticPlayer
from sparring.mus.synthetic_play import compiled_ok, play_synthetic_match
from sparring.seeding import task_seed

ESTIMATED = (
    "aggression",
    "bluff_frequency",
    "acceptance_rate",
    "rejection_rate",
    "risk_tolerance",
    "mus_rate",
)


def make_player(spec: Mapping[str, Any], seed: int) -> SyntheticPlayer:
    """A synthetic player from a profile spec: rates, plus optional ``shift_after`` and
    ``shifted`` (the rates it switches to)."""
    spec = dict(spec)
    shift_after = spec.pop("shift_after", None)
    shifted = spec.pop("shifted", None)
    return SyntheticPlayer.with_rates(
        seed=seed, shift_after=shift_after, shifted=dict(shifted or {}), **spec
    )


def play_hands(players: Sequence[Player], hands: int, seed: int) -> list[Decision]:
    """Matches between the same players until ``hands`` hands are logged (the last match is
    cut there); ``hand`` in the records counts over the whole series from 1.

    Four synthetic players play on the compiled engine (``mus.synthetic_play``), which gives
    the Python engine's records exactly, about 15x faster; any other table on the Python one."""
    records: list[Decision] = []
    done, match = 0, 0
    compiled = compiled_ok(players)
    while done < hands:
        match_seed = task_seed(seed, "match", match)
        if compiled:
            played = play_synthetic_match(players, match_seed)  # type: ignore[arg-type]
            recs, hand_number = played.decisions(), played.hand_number
        else:
            state, recs = play_match(MusGame(), players, seed=match_seed)
            hand_number = state.hand_number
        for r in recs:
            if r.hand + done <= hands:
                r.match, r.hand = match, r.hand + done
                records.append(r)
        done += hand_number
        match += 1
    return records


def _table(profile: Mapping[str, Any], seed: int, others: Mapping[int, Mapping] | None = None):
    players = [make_player({}, task_seed(seed, "seat", s)) for s in range(4)]
    players[1] = make_player(profile, task_seed(seed, "observed"))
    for seat, spec in (others or {}).items():
        players[seat] = make_player(spec, task_seed(seed, "observed", seat))
    return players


def _model_of(records: Sequence[Decision], seat: int, k: float = 10.0) -> PlayerModel:
    model = PlayerModel(f"seat{seat}", k=k)
    for s, metric, ctx, success in observations(records):
        if s == seat:
            model.observe(metric, ctx, success)
    return model


def reference(profile: Mapping[str, Any], hands: int, seed: int) -> dict[str, float]:
    """The realised rate of every estimated metric over ``hands`` hands."""
    records = play_hands(_table(profile, seed), hands, seed)
    counts = {m: [0, 0] for m in ESTIMATED}
    for s, metric, _, success in observations(records):
        if s == 1 and metric in counts:
            counts[metric][0] += success
            counts[metric][1] += 1
    return {m: (k / n if n else float("nan")) for m, (k, n) in counts.items()}


def estimation(
    profile: Mapping[str, Any], hands: int, seed: int, level: float = 0.9
) -> list[dict[str, Any]]:
    """Estimate, credible interval at ``level`` and evidence of every metric after ``hands``
    hands."""
    model = _model_of(play_hands(_table(profile, seed), hands, seed), 1)
    rows = []
    for metric in ESTIMATED:
        rate = model.estimate(metric)
        low, high = rate.interval(level)
        rows.append({"metric": metric, "estimate": rate.mean(), "low": low, "high": high,
                     "n": rate.n()})  # fmt: skip
    return rows


def separation(
    first: Mapping[str, Any], second: Mapping[str, Any], hands: int, seed: int
) -> list[dict[str, Any]]:
    """Two profiles at seats 1 and 3 of the same games: per metric the JS divergence between
    their posteriors and whether their 90% intervals are disjoint."""
    records = play_hands(_table(first, seed, {3: second}), hands, seed)
    a, b = _model_of(records, 1), _model_of(records, 3)
    rows = []
    for metric in MONITORED:
        ra, rb = a.estimate(metric), b.estimate(metric)
        (la, ha), (lb, hb) = ra.interval(0.9), rb.interval(0.9)
        rows.append({"metric": metric, "js": js_divergence(ra, rb),
                     "disjoint": float(ha < lb or hb < la)})  # fmt: skip
    return rows


def drift(
    profile: Mapping[str, Any], hands: int, seed: int, config: DriftConfig | None = None
) -> dict[str, Any]:
    """Alarms of the server-side monitor on the observed player, hand by hand."""
    records = play_hands(_table(profile, seed), hands, seed)
    by_hand: dict[int, list[Decision]] = {}
    for r in records:
        by_hand.setdefault(r.hand, []).append(r)
    monitor = DriftMonitor(config or DriftConfig())
    alarms = []
    for hand in range(1, hands + 1):
        for s, metric, _, success in observations(by_hand.get(hand, [])):
            if s == 1 and metric in MONITORED:
                monitor.observe(metric, success)
        if monitor.end_hand():
            alarms.append(hand)
    shift = profile.get("shift_after")
    if shift is None:
        return {"alarms": alarms, "false_alarms": len(alarms), "delay": float("nan")}
    after = [h - shift for h in alarms if h > shift]
    return {
        "alarms": alarms,
        "false_alarms": sum(h <= shift for h in alarms),
        "delay": float(after[0]) if after else float("inf"),
    }


@dataclass
class SeriesResult:
    """A series of games of a bot pair against a profile."""

    margins: list[float] = field(default_factory=list)  # per game: tantos margin per hand
    wins: list[bool] = field(default_factory=list)
    hands: int = 0
    calibration: dict[str, list[tuple[float, bool]]] = field(default_factory=dict)
    shifts: int = 0
    summary: dict[str, list[str]] = field(default_factory=dict)


def game_margin(events: Sequence, team: int, target: int = 40) -> float:
    """Tantos scored by ``team`` minus tantos scored against it over a match; a juego won by
    an accepted órdago counts as the tantos its winner still needed to reach the target."""
    margin, scores = 0.0, [0, 0]
    for e in events:
        if e.kind == "score":
            _, t, tantos = e.detail
            scores[t] += tantos
            margin += tantos if t == team else -tantos
        elif e.kind == "ordago":
            winner = e.detail[1]
            needed = max(target - scores[winner], 0)
            margin += needed if winner == team else -needed
        elif e.kind == "juego":
            scores = [0, 0]
    return margin


def match_series(
    profile: Mapping[str, Any],
    use_model: bool,
    games: int,
    seed: int,
    store_dir: str | Path | None = None,
) -> SeriesResult:
    """ModelingBots (seats 0, 2; the control with ``use_model=False``) against ``profile``
    (seats 1, 3), with the post-game cycle on a SQLite store between games."""
    result = SeriesResult()
    log = CalibrationLog()
    opponents = {1: "opponent_1", 3: "opponent_3"}
    players = [make_player(profile, task_seed(seed, "opponent", s)) for s in range(4)]
    with tempfile.TemporaryDirectory(dir=store_dir) as tmp:
        server = ModelServer(Path(tmp) / "player_models.db")
        try:
            for g in range(games):
                bots = [ModelingBot(use_model, calibration=log) for _ in range(2)]
                seats: list[Player] = [bots[0], players[1], bots[1], players[3]]
                models = None
                if use_model:
                    models = [server.models_for(s, opponents) if s in (0, 2) else None
                              for s in range(4)]  # fmt: skip
                state, records = play_match(
                    MusGame(MusConfig()), seats, task_seed(seed, "game", g), g, models=models
                )
                reports = server.after_game(str(g), records, opponents, [log])
                result.margins.append(game_margin(state.events, 0) / state.hand_number)
                result.wins.append(state.match_winner == 0)
                result.hands += state.hand_number
                result.shifts += sum(len(r.shifts) for r in reports)
                result.summary = {lang: reports[0].summary[lang] for lang in reports[0].summary}
        finally:
            server.close()
    result.calibration = {k: list(v) for k, v in log.pairs.items()}
    return result


def mean_ci(values: Sequence[float], z: float = 1.96) -> tuple[float, float, float]:
    """Mean and its normal-approximation confidence interval."""
    x = np.asarray(values, float)
    if x.size == 0:
        return float("nan"), float("nan"), float("nan")
    se = x.std(ddof=1) / np.sqrt(x.size) if x.size > 1 else float("inf")
    return float(x.mean()), float(x.mean() - z * se), float(x.mean() + z * se)


def difference_ci(
    a: Sequence[float], b: Sequence[float], z: float = 1.96
) -> tuple[float, float, float]:
    """mean(a) − mean(b) with a normal-approximation interval (independent samples)."""
    xa, xb = np.asarray(a, float), np.asarray(b, float)
    diff = xa.mean() - xb.mean()
    se = np.sqrt(xa.var(ddof=1) / xa.size + xb.var(ddof=1) / xb.size)
    return float(diff), float(diff - z * se), float(diff + z * se)
