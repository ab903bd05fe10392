"""FlagBots rules: perft, hand-checked positions, make/unmake over random play."""

import numpy as np
import pytest

from sparring.flagbots.game import IllegalMoveError, Position
from sparring.flagbots.rules import (
    BOARD,
    COUNT0,
    COUNT1,
    MAX_MOVES,
    FlagBotsConfig,
    full_hash,
    generate,
    mtf_table,
    perft,
)


def test_perft_from_the_default_start():
    pos = Position()
    buffers = np.zeros((8, MAX_MOVES), np.int64)
    assert perft(pos.st, pos.undo_buf, pos.zob, np.int64(pos.key), 1, buffers, False) == 48
    assert perft(pos.st, pos.undo_buf, pos.zob, np.int64(pos.key), 2, buffers, False) == 2304
    moves = pos.legal_actions()
    assert sum(m % 9 == 8 for m in moves) == 7 and len(moves) == 48


def test_blast_with_friendly_fire_and_undo():
    pos = Position.from_text("8N/9/9/9/4N4/3SS4/2N6/9/S8 s 80")
    before, key = pos.st.copy(), pos.key
    pos.apply_action(pos.parse_move("x d4"))
    board = pos.render()
    assert pos.st[COUNT0] == 1 and pos.st[COUNT1] == 1  # d4, e4 (own) and e5, c3 gone
    assert "S" in board.splitlines()[-2]  # a1 survives
    pos.undo()
    assert np.array_equal(pos.st, before) and pos.key == key


def test_entering_the_enemy_flag_wins_and_own_flag_is_banned():
    pos = Position.from_text("NN7/4S4/9/9/9/9/9/3S5/9 s 80")
    with pytest.raises(IllegalMoveError, match="may not enter its own flag"):
        pos.parse_move("d2-e1")
    pos.apply_action(pos.parse_move("e8-e9"))
    assert pos.is_terminal() and pos.returns() == (1, -1) and pos.reason == "flag"


def test_annihilation_and_limit_scoring():
    pos = Position.from_text("9/9/9/9/3N5/3S5/9/9/S8 s 80")
    pos.apply_action(pos.parse_move("x d4"))
    assert pos.returns() == (1, -1) and pos.reason == "annihilation"
    pos = Position.from_text("9/9/9/9/3N5/3S5/9/9/9 s 80")
    pos.apply_action(pos.parse_move("x d4"))
    assert pos.is_terminal() and pos.returns() == (0, 0) and pos.reason == "annihilation"
    short = Position.from_text("9/N8/9/9/4S4/9/9/9/9 s 2")  # equal counts: South is nearer
    short.apply_action(short.parse_move("e5-e6"))
    short.apply_action(short.parse_move("a8-a7"))
    assert short.is_terminal() and short.reason == "limit" and short.returns() == (1, -1)


def test_walls_block_moves_and_change_mtf():
    cfg = FlagBotsConfig.wall_row()
    pos = Position.from_text("N8/9/9/9/1###1###1/1S7/9/9/9 s 80")
    assert pos.cfg == cfg
    with pytest.raises(IllegalMoveError, match="is a wall"):
        pos.parse_move("b4-b5")
    mtf = mtf_table(cfg, 0)
    plain = mtf_table(FlagBotsConfig(), 0)
    cell = 3 * 9 + 2  # c4: the wall forces a detour through a gap
    assert plain[cell] == 5 and mtf[cell] == 6


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("c2-c4", "one step"),
        ("z2-c3", "off the"),
        ("c5-c6", "no robot of yours"),
        ("b2-c2", "is occupied"),
        ("hello", "write a step like c2-d3"),
        ("x c8", "no robot of yours"),
    ],
)
def test_illegal_input_is_refused_with_the_reason(text, message):
    with pytest.raises(IllegalMoveError, match=message):
        Position().parse_move(text)


@pytest.mark.parametrize("cfg", [FlagBotsConfig(), FlagBotsConfig.wall_row()])
def test_make_unmake_restores_state_and_hash_over_random_play(cfg):
    rng = np.random.default_rng(3)
    for _ in range(20):
        pos = Position(cfg)
        states, keys = [], []
        while not pos.is_terminal():
            states.append(pos.st.copy())
            keys.append(pos.key)
            moves = pos.legal_actions()
            blasts = [m for m in moves if m % 9 == 8]
            pick = blasts if blasts and rng.random() < 0.3 else moves
            pos.apply_action(int(rng.choice(pick)))
            assert pos.key == int(full_hash(pos.st, pos.zob))  # incremental == from scratch
        while states:
            pos.undo()
            assert np.array_equal(pos.st, states.pop()) and pos.key == keys.pop()


def test_pruning_skips_exactly_the_harmless_blasts():
    rng = np.random.default_rng(5)
    pos = Position()
    for _ in range(12):
        pos.apply_action(int(rng.choice(pos.legal_actions())))
        if pos.is_terminal():
            break
        full = set(pos.legal_actions())
        out = np.zeros(MAX_MOVES, np.int64)
        pruned = set(out[: generate(pos.st, out, True)].tolist())
        skipped = full - pruned
        me = pos.current_player() + 1
        for m in full:
            if m % 9 != 8:
                assert m in pruned
                continue
            cell = m // 9
            x, y = cell % 9, cell // 9
            hits = any(
                0 <= x + dx < 9
                and 0 <= y + dy < 9
                and pos.st[BOARD + (y + dy) * 9 + x + dx] not in (0, 3, me)
                for dx in (-1, 0, 1)
                for dy in (-1, 0, 1)
            )
            assert (m in skipped) == (not hits)


@pytest.mark.parametrize(
    "text",
    [
        "9/1NNNNNNN1/9/9/9/9/9/1SSSSSSS1/9 s 80",
        "5/N3N/1SNS1/5/S3S n 10",
        "7/1NNNNN1/7/##2###/7/1SSSSS1/7 s 30",
    ],
)
def test_position_text_round_trips(text):
    pos = Position.from_text(text)
    assert pos.to_text() == text
    moves = pos.legal_actions()
    pos.apply_action(moves[0])
    again = Position.from_text(pos.to_text())  # the same board, side and plies left
    assert again.to_text() == pos.to_text()
    assert again.legal_actions() == pos.legal_actions()


def test_a_finished_position_from_text_knows_it_is_over():
    won = Position.from_text("4S4/9/9/9/9/9/9/1N7/9 n 10")  # South stands on North's flag
    assert won.is_terminal() and won.returns() == (1, -1) and won.reason == "flag"
    assert won.legal_actions() == []
    alone = Position.from_text("9/9/9/9/9/9/9/1S7/9 n 10")
    assert alone.is_terminal() and alone.reason == "annihilation"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("9/9 s 80", "sides must be in 5..32"),
        ("5/1NNN1/5/1SSS1/5 x 10", "side to move is s or n"),
        ("5/1NNN1/5/1SSS1/5 s 0", "plies left must be an integer >= 1"),
        ("5/1NXN1/5/1SSS1/5 s 10", "'X' is not S, N, #"),
        ("5/1NN1/5/1SSS1/5 s 10", "every row must have 5 cells"),
        ("5/#NNN1/5/1SSS1/5 s 10", "on a start or flag row"),
        ("5/1NNN1/5/1SSS1/2S2 s 10", "on its own flag"),
        ("5/1NNN1/5/1SSS1/5", "expected '<rows> <side> <plies left>'"),
    ],
)
def test_bad_position_text_says_what_is_wrong(text, message):
    with pytest.raises(ValueError, match=message):
        Position.from_text(text)


def test_a_position_is_a_game_state_and_search_game():
    from sparring.flagbots.alphabeta import SearchGame, UniformTree
    from sparring.game_api import GameState, IllegalActionError

    pos = Position.from_text("5/1NNN1/5/1SSS1/5 s 20")
    assert isinstance(pos, GameState) and isinstance(UniformTree(2, 2), SearchGame)
    obs = pos.observation(1)
    assert obs == {"player": 1, "position": pos.to_text(), "to_move": 0, "ply": 0, "reason": ""}
    twin = pos.clone()
    twin.apply_action(twin.legal_actions()[0])
    assert pos.ply == 0 and twin.ply == 1
    twin.undo()
    assert twin.to_text() == pos.to_text() and twin.key == pos.key
    for junk in (True, "c2-d3", 1.0, None):
        with pytest.raises(IllegalActionError):
            pos.apply_action(junk)
    assert pos.ply == 0
