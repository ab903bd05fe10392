"""The compiled Mus engine against the Python one: same seeds, same players, the same log.

The Python engine is the reference (its rules are checked in test_game, test_lance and
test_scoring against the spec and the Mus frequencies); the kernel must reproduce its every
decision record, the match's length and winner, and leave the players' generators and hand
counts where the Python engine leaves them.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sparring.mus import kernel, synthetic_play
from sparring.mus.engine import MusConfig, MusGame
from sparring.mus.keys import LANCES
from sparring.mus.log import play_match, to_arrow
from sparring.mus.players import Profile, SyntheticPlayer
from sparring.mus.strength import LANCE_KEYS, multisets
from sparring.mus.synthetic_play import compiled_ok, play_synthetic_match

RATE = st.floats(0.0, 1.0)
PROFILES = st.builds(
    Profile,
    aggression=RATE,
    bluff_frequency=RATE,
    acceptance_rate=RATE,
    risk_tolerance=RATE,
    raise_rate=st.floats(0.0, 0.6),  # raises on raises: long lances, still finite
    ordago_rate=st.floats(0.0, 0.3),
    mus_rate=RATE,
    bet_size=st.integers(2, 40),
)
PLAYERS = st.lists(
    st.tuples(
        PROFILES,
        st.dictionaries(st.sampled_from(("mus", *LANCES)), PROFILES, max_size=2),
        st.one_of(st.none(), st.integers(-2, 12)),  # negative: shifted from the first hand
        PROFILES,
    ),
    min_size=4,
    max_size=4,
)


def _players(specs, seed: int) -> list[SyntheticPlayer]:
    return [
        SyntheticPlayer(profile, dict(per_lance), shift_after, shifted, seed=seed * 4 + i)
        for i, (profile, per_lance, shift_after, shifted) in enumerate(specs)
    ]


def _same_match(specs, seed: int, matches: int = 2) -> None:
    compiled, python = _players(specs, seed), _players(specs, seed)
    for m in range(matches):  # players carry over: hand counts (and shifts) across matches
        played = play_synthetic_match(compiled, seed * 10 + m, m)
        state, records = play_match(MusGame(), python, seed * 10 + m, m)
        assert played.decisions() == records
        assert (played.hand_number, played.match_winner) == (state.hand_number, state.match_winner)
        assert [p.hands_seen for p in compiled] == [p.hands_seen for p in python]
    assert [p.rng.random() for p in compiled] == [p.rng.random() for p in python]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PLAYERS, st.integers(0, 10**6))
def test_the_kernel_logs_every_decision_the_python_engine_logs(specs, seed):
    _same_match(specs, seed)


@pytest.mark.parametrize(
    "rates",
    [
        {},  # the validate grid's profiles
        {"aggression": 0.15, "bluff_frequency": 0.1, "acceptance_rate": 0.35},
        {"aggression": 0.6, "bluff_frequency": 0.8, "bet_size": 10},
        {"acceptance_rate": 0.95, "risk_tolerance": 0.6},
        {"aggression": 1.0, "ordago_rate": 0.5, "acceptance_rate": 1.0},  # órdagos called
        {"mus_rate": 1.0},  # mus until the safety cap, through reshuffles of the discards
    ],
)
def test_the_kernel_plays_the_validate_profiles_as_python_does(rates):
    base = Profile(**rates)
    _same_match([(base, {}, None, base)] * 4, seed=len(rates), matches=3)


def test_a_shift_changes_the_log_at_the_hand_it_is_due():
    shifted = Profile(aggression=0.9, bluff_frequency=0.9, bet_size=5)
    specs = [(Profile(aggression=0.1), {}, 3, shifted)] * 4
    _same_match(specs, seed=3)
    # control: the same players without the shift log something else
    plain = play_synthetic_match(_players([(Profile(aggression=0.1), {}, None, None)] * 4, 3), 30)
    assert plain.decisions() != play_synthetic_match(_players(specs, 3), 30).decisions()


def test_the_log_as_a_table_is_the_python_engines_table():
    players = [SyntheticPlayer.with_rates(seed=i, bluff_frequency=0.7) for i in range(4)]
    reference = [SyntheticPlayer.with_rates(seed=i, bluff_frequency=0.7) for i in range(4)]
    played = [play_synthetic_match(players, seed, match_id=9 + seed) for seed in (5, 6)]
    records = [r for seed in (5, 6) for r in play_match(MusGame(), reference, seed, 9 + seed)[1]]
    table = synthetic_play.to_arrow(played)
    assert table.num_rows == len(records) > 0
    assert table.equals(to_arrow(records))
    assert played[0].table().equals(to_arrow([r for r in records if r.match == 14]))
    assert synthetic_play.to_arrow([]).num_rows == 0


def test_lance_keys_order_every_hand_as_keys_py_does():
    """All 330 rank multisets (8 reyes): the kernel's integer keys sort and tie exactly as the
    tuples of keys.py, and take part (>= 0) exactly when those are not None."""
    rank_to_card = {1: 0, 4: 3, 5: 4, 6: 5, 7: 6, 10: 7, 11: 8, 12: 9}  # a card of each rank
    hands = multisets(True)
    ours = np.array(
        [
            kernel._lance_keys(
                np.array([rank_to_card[r] for r in ranks], dtype=np.int64),
                kernel.RANK_OF_CARD,
                kernel.POINTS_OF_CARD,
                kernel.JUEGO_ORDER,
            )[:5]
            for ranks in hands
        ]
    )
    for i, lance in enumerate(LANCES):
        theirs = [LANCE_KEYS[lance](ranks) for ranks in hands]
        assert [k is not None for k in theirs] == list(ours[:, i] >= 0), lance
        taking_part = [j for j, k in enumerate(theirs) if k is not None]
        for a in taking_part:
            for b in taking_part:
                assert (theirs[a] < theirs[b]) == (ours[a, i] < ours[b, i]), (lance, a, b)
                assert (theirs[a] == theirs[b]) == (ours[a, i] == ours[b, i]), (lance, a, b)


def test_only_what_the_kernel_plays_exactly_is_sent_to_it():
    players = [SyntheticPlayer.with_rates(seed=i) for i in range(4)]
    assert MusConfig() == kernel.RULES  # the defaults: what validate and simulate play
    assert compiled_ok(players) and compiled_ok(players, MusConfig())
    assert not compiled_ok(players, MusConfig(target=30))  # another rule

    class Tweaked(SyntheticPlayer):
        pass

    assert not compiled_ok([Tweaked(), *players[1:]])  # another player
    assert not compiled_ok(players[:3])
    assert not compiled_ok([players[0]] * 4)  # one object at every seat: one hand count
    too_big = [*players[:3], SyntheticPlayer(replace(Profile(), bet_size=41))]
    assert not compiled_ok(too_big)  # an envido the rules refuse
    with pytest.raises(ValueError, match="play_match"):
        play_synthetic_match(too_big, 0)
    endless = Profile(raise_rate=1.0, ordago_rate=0.0)  # every bet raised: a war with no end
    assert not compiled_ok([*players[:3], SyntheticPlayer(endless)])
    assert compiled_ok([*players[:3], SyntheticPlayer(replace(endless, ordago_rate=0.1))])
    halfway = SyntheticPlayer(shift_after=2.5)  # type: ignore[arg-type]
    assert not compiled_ok([*players[:3], halfway])  # whole hands only
