"""What a bot may know: public records rebuilt exactly, decisions that depend on nothing else."""

from dataclasses import asdict

import pytest

from sparring.modeling.bot import ModelingBot
from sparring.modeling.cycle import ModelServer
from sparring.modeling.memory import ShortTermMemory
from sparring.modeling.metrics import observations
from sparring.mus.engine import MusGame
from sparring.mus.log import play_match
from sparring.mus.players import SyntheticPlayer

COMPARED = ("hand", "lance", "seat", "distance", "lance_mano", "score_own", "score_other",
            "juegos_own", "juegos_other", "mus_rounds", "pending", "accepted", "stake", "raised",
            "is_ordago", "action", "amount", "final", "all_hands")  # fmt: skip


class Recorder(SyntheticPlayer):
    """A synthetic player that keeps every hand's public events."""

    def on_hand_end(self, revealed, public=()):
        super().on_hand_end(revealed, public)
        self.publics = [*getattr(self, "publics", []), public]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_public_events_rebuild_the_servers_decision_log(seed):
    players = [Recorder.with_rates(seed=10 * seed + i, ordago_rate=0.01, raise_rate=0.2)
               for i in range(4)]  # fmt: skip
    _, log = play_match(MusGame(), players, seed=seed)
    memory = ShortTermMemory()
    rebuilt = [r for public in players[0].publics for r in memory.end_hand(public)]
    assert len(rebuilt) == len(log)
    for mine, theirs in zip(rebuilt, log, strict=True):
        a, b = asdict(mine), asdict(theirs)
        assert {k: a[k] for k in COMPARED} == {k: b[k] for k in COMPARED}
        if mine.lance != "mus":  # betting hands are the revealed ones: same percentiles
            assert mine.own_hand == theirs.own_hand
            assert mine.pct_grande == pytest.approx(theirs.pct_grande)
    assert list(observations(rebuilt)) == list(observations(log))


class Tap(ModelingBot):
    """Records every input the bot gets, as plain data."""

    def on_game_start(self, models=None):
        super().on_game_start(models)
        self.inputs = [("start", models)]

    def act(self, observation, legal):
        plain = dict(observation)
        plain["history"] = list(observation["history"])
        action = super().act(observation, legal)
        self.inputs.append(("act", plain, action))
        return action

    def on_hand_end(self, revealed, public=()):
        super().on_hand_end(revealed, public)
        self.inputs.append(("end", revealed, public))


def _opponents(seed):
    return [SyntheticPlayer.with_rates(seed=seed + s, aggression=0.6, bluff_frequency=0.7)
            for s in range(4)]  # fmt: skip


def _snapshot(models):
    return {s: {k: list(v) for k, v in m.counts.items()} for s, m in models.items()}


def test_a_bot_acts_on_its_observation_and_public_information_only(tmp_path):
    server = ModelServer(tmp_path / "models.db")
    ids = {1: "p1", 3: "p3"}
    others = _opponents(100)
    for game in range(2):
        bots = [Tap(), Tap()]
        models = [server.models_for(s, ids) if s in (0, 2) else None for s in range(4)]
        before = _snapshot(models[0])
        seats = [bots[0], others[1], bots[1], others[3]]
        _, log = play_match(MusGame(), seats, seed=game, models=models)
        # the models handed over are history: unchanged by the game being played
        assert _snapshot(models[0]) == before
        if game == 1:
            assert before[1]  # learnt from game 0 only
        for seat, bot in ((0, bots[0]), (2, bots[1])):
            for kind, *payload in bot.inputs:
                if kind != "act":
                    continue
                obs = payload[0]
                assert obs["seat"] == seat
                private = [e for e in obs["history"] if e[0] in ("cards", "discarded_cards")]
                assert all(e[1] == seat for e in private)  # never another seat's cards
            # a fresh bot fed the same plain inputs decides the same: nothing else was used
            twin = ModelingBot()
            for kind, *payload in bot.inputs:
                if kind == "start":
                    twin.on_game_start(payload[0])
                elif kind == "act":
                    assert twin.act(payload[0], payload[0]["legal"]) == payload[1]
                else:
                    twin.on_hand_end(*payload)
        server.after_game(str(game), log, ids)
    server.close()


def test_external_bots_never_receive_models_of_humans(tmp_path):
    server = ModelServer(tmp_path / "models.db", humans=frozenset({"alice"}))
    seats = {1: "alice", 3: "bot-7"}
    assert set(server.models_for(0, seats)) == {1, 3}
    assert set(server.models_for(0, seats, external=True)) == {3}
    server.close()
