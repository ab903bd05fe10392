"""FlagBots' bridge methods (#50): ``actions()`` is exactly the moves a position of the game's
board can offer, each once, and ``encode`` turns an observation alone into
``observation_shape()`` float32 planes in [0, 1]: checked against the engine's own move
generator and state over random games, on the spec's board and on smaller ones with walls."""

from __future__ import annotations

import copy
import json
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sparring.flagbots.game import GAME, PLANES, FlagBotsGame, Position
from sparring.flagbots.rules import (
    BOARD,
    FLAG0,
    FLAG1,
    LIMIT,
    NORTH,
    SIDE,
    SOUTH,
    WALL,
    FlagBotsConfig,
    H,
    T,
    W,
)

WALLED = "7/1NNNNN1/7/##2###/7/1SSSSS1/7 s 30"
GAMES = [
    GAME,
    FlagBotsGame("5/1NNN1/5/1SSS1/5 s 20"),
    FlagBotsGame(WALLED),
    FlagBotsGame(cfg=FlagBotsConfig.wall_row(limit=40)),
]
IDS = ["9x9", "5x5", "7x7-walls", "9x9-wall-row"]


def playout(game: FlagBotsGame, rng: random.Random) -> list[Position]:
    """Every position of one game played with random legal moves to its end (copies)."""
    pos = game.new_state(0)
    states = [pos.clone()]
    while not pos.is_terminal():
        pos.apply_action(rng.choice(pos.legal_actions()))
        states.append(pos.clone())
    return states


def _text(w: int, h: int, pieces: dict[int, str], side: str, left: int) -> str:
    """A position as text from its pieces by cell (``y * w + x``)."""
    rows = []
    for y in range(h - 1, -1, -1):
        row, run = "", 0
        for x in range(w):
            ch = pieces.get(y * w + x)
            if ch is None:
                run += 1
                continue
            row += (str(run) if run else "") + ch
            run = 0
        rows.append(row + (str(run) if run else ""))
    return f"{'/'.join(rows)} {side} {left}"


def check_against_the_position(game: FlagBotsGame, pos: Position, player: int) -> np.ndarray:
    obs = pos.observation(player)
    before = copy.deepcopy(obs)
    x = game.encode(obs)
    assert obs == before
    assert x.shape == game.observation_shape() == (len(PLANES), int(pos.st[H]), int(pos.st[W]))
    assert x.dtype == np.float32 and np.isfinite(x).all() and x.min() >= 0 and x.max() <= 1
    w, h = int(pos.st[W]), int(pos.st[H])
    board = pos.st[BOARD : BOARD + w * h]
    plane = dict(zip(PLANES, x.reshape(len(PLANES), -1), strict=True))
    assert np.array_equal(plane["south"], board == SOUTH)
    assert np.array_equal(plane["north"], board == NORTH)
    assert np.array_equal(plane["wall"], board == WALL)
    assert np.flatnonzero(plane["south_flag"]).tolist() == [int(pos.st[FLAG0])]
    assert np.flatnonzero(plane["north_flag"]).tolist() == [int(pos.st[FLAG1])]
    assert (plane["north_to_move"] == pos.st[SIDE]).all()
    assert (plane["observer_north"] == player).all()
    left = (pos.st[LIMIT] - pos.st[T]) / pos.st[LIMIT]
    assert np.allclose(plane["plies_left"], left)
    assert (plane["over"] == pos.is_terminal()).all()
    return x


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_action_set_is_every_move_a_position_of_the_board_can_offer(game):
    """Tight and complete: for each cell, a lone South robot there and a lone North robot
    there (the other side's robot far away) offer, together, exactly the listed moves from
    it; and the list has no move twice, in ascending order."""
    actions = list(game.actions())
    assert actions == sorted(set(actions))
    start = game.new_state(0)
    w, h, left = int(start.st[W]), int(start.st[H]), int(start.st[LIMIT])
    walls = {c: "#" for c in range(w * h) if start.st[BOARD + c] == WALL}
    flags = {int(start.st[FLAG0]), int(start.st[FLAG1])}
    offered: set[int] = set()
    for cell in range(w * h):
        if cell in walls or cell in flags:
            continue
        x, y = cell % w, cell // w
        far = next(
            c
            for c in range(w * h)
            if max(abs(c % w - x), abs(c // w - y)) >= 2 and c not in walls and c not in flags
        )
        for me, other, side in (("S", "N", "s"), ("N", "S", "n")):
            pos = Position.from_text(_text(w, h, {**walls, cell: me, far: other}, side, left))
            offered |= {m for m in pos.legal_actions() if m // 9 == cell}
    assert offered == set(actions)


def test_the_sizes_are_documented():
    assert len(GAME.actions()) == 613 and GAME.observation_shape() == (9, 9, 9)
    assert len(FlagBotsGame("5/1NNN1/5/1SSS1/5 s 20").actions()) == 157
    assert FlagBotsGame(WALLED).observation_shape() == (9, 7, 7)


@settings(max_examples=100, deadline=None)
@given(which=st.integers(0, len(GAMES) - 1), play=st.integers(0, 2**32 - 1))
def test_random_games_offer_only_listed_moves_and_encode_as_they_are(which, play):
    game = GAMES[which]
    actions = set(game.actions())
    assert len(actions) == len(game.actions())
    for pos in playout(game, random.Random(play)):
        assert set(pos.legal_actions()) <= actions
        for player in (0, 1):
            x = check_against_the_position(game, pos, player)
            again = json.loads(json.dumps(pos.observation(player)))
            assert np.array_equal(game.encode(again), x)


def test_a_position_reached_two_ways_encodes_the_same_and_a_move_changes_it():
    """The encoding is the observation's, not the game's: two move orders that reach one
    position (with different histories behind them) give equal arrays; the two players'
    differ (who observes), and one more move changes the robots' planes."""
    a, b = GAME.new_state(0), GAME.new_state(0)
    moves = ["b2-b3", "b8-b7", "h2-h3", "h8-h7"]
    for move in moves:
        a.apply_action(a.parse_move(move))
    for move in moves[2:] + moves[:2]:
        b.apply_action(b.parse_move(move))
    assert a.undo_buf.tolist() != b.undo_buf.tolist()  # the states differ in their histories
    for player in (0, 1):
        assert a.observation(player) == b.observation(player)
        assert np.array_equal(
            GAME.encode(a.observation(player)), GAME.encode(b.observation(player))
        )
    assert not np.array_equal(GAME.encode(a.observation(0)), GAME.encode(a.observation(1)))
    before = GAME.encode(a.observation(0))
    a.apply_action(a.parse_move("c2-c3"))
    after = GAME.encode(a.observation(0))
    changed = [PLANES[p] for p in range(len(PLANES)) if not np.array_equal(before[p], after[p])]
    assert changed == ["south", "north_to_move", "plies_left"]


def test_different_observations_encode_differently():
    """Over random games, observations with the same JSON have the same array and different
    ones different arrays (the encoding keeps all an observation says but why it ended)."""
    seen: dict[bytes, str] = {}
    arrays: dict[str, bytes] = {}
    for play in range(15):
        for pos in playout(GAME, random.Random(play)):
            for player in (0, 1):
                obs = pos.observation(player)
                obs.pop("reason")
                key = json.dumps(obs, sort_keys=True)
                x = GAME.encode(pos.observation(player)).tobytes()
                assert seen.setdefault(x, key) == key and arrays.setdefault(key, x) == x
    assert len(seen) > 500


def test_an_observation_of_another_board_is_refused():
    small = FlagBotsGame("5/1NNN1/5/1SSS1/5 s 20").new_state(0).observation(0)
    with pytest.raises(ValueError, match="not a position of a 9 x 9 board"):
        GAME.encode(small)
