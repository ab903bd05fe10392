"""``ModelingBot``: a Mus player whose betting comes from the judge fed by opponent models (§9).

What it knows, and nothing more (§6 isolation): its observation (own cards, public history),
the opponents' PlayerModels handed over by the server at ``on_game_start`` (history from earlier
games), and at the end of each hand the revealed hands with the hand's public events. From
those it keeps a short-term memory (this game), a session memory (fast decay) and a drift
monitor per opponent. With ``use_model=False`` it is the control: the same bot with population
priors only.

Estimates for the judge: the long-term model's counters (scaled down while a strategy shift is
suspected) merged with the session's, backed off in the opponent's context, then blended with
the drift monitor's recent rate by its current weight. Predictions of P(win lance) and
P(bluff) are recorded and scored against the revealed hands in the calibration log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sparring.modeling import judge
from sparring.modeling.calibration import CalibrationLog
from sparring.modeling.drift import DriftConfig, DriftMonitor, StrategyShiftSuspected
from sparring.modeling.memory import LanceView, SessionMemory, ShortTermMemory, parse_action
from sparring.modeling.metrics import Context, observations, situation
from sparring.modeling.model import MergedModel, PlayerModel, population_prior
from sparring.mus.cards import FACES
from sparring.mus.engine import DISCARD, MUS, NO_MUS
from sparring.mus.lance import ENVIDO, NO_QUIERO, PASO, QUIERO, Action
from sparring.mus.players import keep_kings_and_pairs, own_percentile
from sparring.mus.scoring import Table

MONITORED = ("aggression", "bluff_frequency", "acceptance_rate")


@dataclass
class _Prediction:
    kind: str  # win_lance | bluff
    p: float
    lance: str
    seat: int  # win_lance: our seat; bluff: the bettor


class ModelingBot:
    def __init__(
        self,
        use_model: bool = True,
        calibration: CalibrationLog | None = None,
        drift: DriftConfig | None = None,
        session_decay: float = 0.9,
        mus_threshold: float = 0.75,
        target: int = 40,
    ) -> None:
        self.use_model = use_model
        self.calibration = calibration if calibration is not None else CalibrationLog()
        self.drift_config = drift or DriftConfig()
        self.session_decay = session_decay
        self.mus_threshold = mus_threshold
        self.target = target
        self.shifts: list[tuple[int, StrategyShiftSuspected]] = []
        self.on_game_start(None)

    # ------------------------------------------------------------------ lifecycle
    def on_game_start(self, models: Mapping[int, PlayerModel] | None = None) -> None:
        """``models``: the opponents' long-term models by seat (None: none known)."""
        self.models = dict(models or {})
        self.memory: ShortTermMemory | None = None
        self.session = SessionMemory(decay=self.session_decay)
        self.monitors: dict[int, DriftMonitor] = {}
        self.predictions: list[_Prediction] = []
        self.seat: int | None = None
        self._merged: dict[int, PlayerModel | MergedModel] = {}
        self.bet_sizes: dict[int, tuple[float, int]] = {}

    def on_hand_end(self, revealed: tuple, public: tuple = ()) -> None:
        if self.seat is None or self.memory is None:
            return  # never acted in this game: nothing to learn about
        records = self.memory.end_hand(public)
        mano = next(d["mano"] for k, _, d in public if k == "deal")
        ocho = self.memory.ocho_reyes
        table = Table(tuple(tuple(FACES[c % 10] for c in h) for h in revealed), mano, ocho)
        for pred in self.predictions:
            if pred.kind == "win_lance":
                winner = table.card_winner(pred.lance)
                outcome = winner is not None and winner % 2 == pred.seat % 2
            else:
                outcome = next(
                    (getattr(r, f"pct_{pred.lance}") < judge.WEAK)
                    for r in records
                    if r.seat == pred.seat and r.lance == pred.lance
                )
            self.calibration.add(pred.kind, pred.p, outcome)
        self.predictions = []
        if not self.use_model:
            return  # the control decides on population priors: nothing to learn
        opponents = self._opponents()
        for r in records:
            if r.seat in opponents and r.action == "envido":
                total, count = self.bet_sizes.get(r.seat, (0.0, 0))
                self.bet_sizes[r.seat] = (total + r.amount, count + 1)
        self.session.end_hand(records, opponents)
        for seat, metric, _, success in observations(records):
            if seat in opponents and metric in MONITORED:
                self._monitor(seat).observe(metric, success)
        for seat in opponents:
            for event in self._monitor(seat).end_hand():
                self.shifts.append((seat, event))
        self._merged = {}

    # ------------------------------------------------------------------ decisions
    def act(self, observation: dict, legal: Sequence[str]) -> Action:
        if self.seat is None:
            self.seat = observation["seat"]
            self.memory = ShortTermMemory(observation["ocho_reyes"])
        kinds = legal
        if MUS in kinds:
            best = max(own_percentile(observation, x) for x in ("grande", "pares", "juego"))
            return Action(NO_MUS if best >= self.mus_threshold else MUS)
        if DISCARD in kinds:
            return keep_kings_and_pairs(observation)
        lance = observation["lance"]
        q = own_percentile(observation, lance)
        state = _lance_state(observation["history"], lance)
        if QUIERO in kinds:
            return self._answer(observation, lance, q, state)
        if PASO in kinds:
            return self._open(observation, lance, q)
        return Action(kinds[0])  # nothing else is ever forced; kept for safety

    def _answer(self, obs: dict, lance: str, q: float, state: LanceView) -> Action:
        bettor = state.bettor
        bluff = self.estimate(bettor, "bluff_frequency", obs, lance)
        p = self.calibration.scale("win_lance", judge.win_probability(q, bluff))
        if state.is_ordago:
            opponents_score = obs["scores"][1 - obs["seat"] % 2]
            stake = max(self.target - opponents_score, 1)
        else:
            stake = state.stake
        refusal = state.accepted if state.raised else 1
        if (obs["seat"] + 2) % 4 in state.refused:
            # the partner has just refused: his hand is below his acceptance threshold
            partner_max = judge.accept_threshold(bluff, stake, refusal)
            p = self.calibration.scale("win_lance", judge.win_probability(q, bluff, partner_max))
        decision = judge.answer(p, stake, refusal)
        self.predictions.append(_Prediction("win_lance", p, lance, obs["seat"]))
        self.predictions.append(_Prediction("bluff", bluff, lance, bettor))
        return Action(QUIERO if decision.act == "quiero" else NO_QUIERO)

    def _open(self, obs: dict, lance: str, q: float) -> Action:
        answerer = (obs["seat"] + 1) % 4
        fold = self.estimate(answerer, "rejection_rate", obs, lance)
        weak = self.estimate(answerer, "risk_tolerance", obs, lance)
        p_called = self.calibration.scale("win_lance", judge.win_probability(q, weak))
        p_uniform = self.calibration.scale("win_lance", judge.win_probability(q, judge.WEAK))
        reply = self.estimate(answerer, "aggression", obs, lance)
        bluff = self.estimate(answerer, "bluff_frequency", obs, lance)
        p_vs = self.calibration.scale("win_lance", judge.win_probability(q, bluff))
        size = self.bet_size(answerer)
        decision = judge.open_bet(p_called, p_uniform, fold, 2, reply, p_vs, size)
        self.predictions.append(_Prediction("win_lance", p_uniform, lance, obs["seat"]))
        return Action(ENVIDO, 2) if decision.act == "envido" else Action(PASO)

    # ------------------------------------------------------------------ estimates
    def estimate(self, seat: int, metric: str, obs: dict, lance: str) -> float:
        """The judge's number for ``metric`` of the player at ``seat`` in this situation."""
        if not self.use_model:
            a, b = population_prior(metric)
            return a / (a + b)
        context = _context_for(seat, obs, lance, self.target)
        mean = self._model(seat).estimate(metric, context).mean()
        monitor = self.monitors.get(seat)
        if monitor is None or metric not in MONITORED:
            return mean
        w = monitor.recent_weight(metric)
        return (1 - w) * mean + w * monitor.recent(metric).mean()

    def bet_size(self, seat: int) -> float:
        """The mean size of the envidos seen from ``seat`` this game (2 until one is seen)."""
        total, count = self.bet_sizes.get(seat, (0.0, 0))
        return total / count if count and self.use_model else 2.0

    def _model(self, seat: int) -> PlayerModel | MergedModel:
        if seat not in self._merged:
            session = self.session.model(seat)
            long = self.models.get(seat)
            monitor = self.monitors.get(seat)
            scale = 1.0 if monitor is None else min(monitor.confidence_scale(m) for m in MONITORED)
            self._merged[seat] = session if long is None else long.merged(session, scale)
        return self._merged[seat]

    def _monitor(self, seat: int) -> DriftMonitor:
        if seat not in self.monitors:
            self.monitors[seat] = DriftMonitor(self.drift_config)
        return self.monitors[seat]

    def _opponents(self) -> tuple[int, int]:
        assert self.seat is not None, "seated at game start"
        return ((self.seat + 1) % 4, (self.seat + 3) % 4)


def _context_for(seat: int, obs: dict, lance: str, target: int) -> Context:
    """The context of a decision by ``seat`` now, from the public state."""
    scores = obs["scores"]
    return situation(
        lance, scores[seat % 2], scores[1 - seat % 2], (seat - obs["mano"]) % 4, target
    )


def _lance_state(history: list, lance: str) -> LanceView:
    """The current lance's betting state, from this hand's public bets."""
    view = LanceView([])
    start = max(i for i, e in enumerate(history) if e[0] == "deal")
    for kind, seat, detail in history[start:]:
        if kind == "bet" and detail[0] == lance:
            view.advance(seat, *parse_action(detail[1]))
    return view
