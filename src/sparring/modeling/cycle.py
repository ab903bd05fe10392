"""The server side of the player model: what happens before and after each game (§6, §8).

``ModelServer`` owns the long-term store and, per player, a drift monitor over the hands of
all that player's games. Before a game, ``models_for(seat, seat_players)`` hands a seat its
opponents' PlayerModels — a snapshot of history, nothing of the game about to start; external
tournament bots never receive models of humans. After a game, ``after_game`` runs the cycle:

1. extract decisions, contexts and revealed hands from the decision log (``observations``);
2. score the bots' predictions: each calibration log refits its temperature when its latest
   window got worse;
3. update each player's counters in the store and feed the player's drift monitor hand by
   hand; a ``StrategyShiftSuspected`` scales that metric's long-term counters down;
4. update the statistics (games, hands) and keep human players' own replays;
5. write the private summary per player in Spanish and English;
6. tell the user: "The bot has updated its model of your play."
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sparring.modeling.bot import MONITORED
from sparring.modeling.calibration import CalibrationLog
from sparring.modeling.drift import DriftConfig, DriftMonitor, StrategyShiftSuspected
from sparring.modeling.metrics import observations
from sparring.modeling.model import PlayerModel
from sparring.modeling.store import add_game, add_model, load, open_store, save_replay, scale_counts
from sparring.modeling.summary import LANGS, summarize, user_message


@dataclass
class GameReport:
    """What the cycle did for one player of a finished game."""

    player_id: str
    observations: int
    shifts: list[StrategyShiftSuspected]
    summary: dict[str, list[str]]  # per language
    user_message: dict[str, str]


@dataclass
class ModelServer:
    store_path: str | Path
    drift: DriftConfig = field(default_factory=DriftConfig)
    k: float = 10.0
    humans: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        self.conn = open_store(self.store_path)
        self.monitors: dict[str, DriftMonitor] = {}

    def close(self) -> None:
        self.conn.close()

    def model(self, player_id: str) -> PlayerModel:
        return load(self.conn, player_id, self.k)

    def models_for(
        self, seat: int, seat_players: Mapping[int, str], external: bool = False
    ) -> dict[int, PlayerModel]:
        """The opponents' long-term models for the bot at ``seat``, keyed by their seats."""
        out = {}
        for other in ((seat + 1) % 4, (seat + 3) % 4):
            player = seat_players.get(other)
            if player is None or (external and player in self.humans):
                continue
            out[other] = self.model(player)
        return out

    def after_game(
        self,
        game_id: str,
        records: Sequence,
        seat_players: Mapping[int, str],
        calibration: Sequence[CalibrationLog] = (),
        replays: Mapping[str, list] | None = None,
    ) -> list[GameReport]:
        """Run the post-game cycle for the players named in ``seat_players``."""
        # 1. decisions + context + revealed hands
        per_seat: dict[int, PlayerModel] = {}
        by_hand: dict[tuple[int, int], list] = defaultdict(list)
        for r in records:
            by_hand[(r.match, r.hand)].append(r)
        per_hand: dict[tuple[int, int], list[tuple[int, str, bool]]] = defaultdict(list)
        for hand, hand_records in sorted(by_hand.items()):
            for seat, metric, ctx, success in observations(hand_records):
                if seat not in seat_players:
                    continue
                per_seat.setdefault(seat, PlayerModel(seat_players[seat], self.k)).observe(
                    metric, ctx, success
                )
                if metric in MONITORED:
                    per_hand[hand].append((seat, metric, success))
        # 2. predictions against outcomes
        for log in calibration:
            log.check()
        hands = len(by_hand)
        reports = []
        for seat, player in seat_players.items():
            game = per_seat.get(seat, PlayerModel(player, self.k))
            # 3. the long-term model and drift
            add_model(self.conn, game)
            monitor = self.monitors.setdefault(player, DriftMonitor(self.drift))
            shifts = []
            for hand in sorted(per_hand):
                for s, metric, success in per_hand[hand]:
                    if s == seat:
                        monitor.observe(metric, success)
                shifts += monitor.end_hand()
            for shift in shifts:
                scale_counts(self.conn, player, shift.metric, self.drift.confidence_factor)
            # 4. statistics and the player's own replay
            add_game(self.conn, player, hands)
            if replays and player in self.humans and player in replays:
                save_replay(self.conn, player, game_id, replays[player])
            # 5–6. summaries and the user message
            model = self.model(player)
            reports.append(
                GameReport(
                    player,
                    int(sum(s + f for (_, key), (s, f) in game.counts.items() if key == ())),
                    shifts,
                    {lang: summarize(game, model, shifts, lang) for lang in LANGS},
                    {lang: user_message(lang) for lang in LANGS},
                )
            )
        return reports
