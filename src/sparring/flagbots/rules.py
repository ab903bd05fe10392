"""FlagBots rules as numba kernels over a flat state array, with make/unmake and Zobrist keys.

State ``st`` (int64): header fields (below) then the board, one cell per ``y * W + x``:
0 empty, 1 South robot, 2 North robot, 3 wall. Moves are ints ``cell * 9 + k``: k = 0..7 a step
in direction ``DIRS[k]``, k = 8 a self-destruct. ``undo[t]`` remembers what ply t changed (the
robots a blast removed, both sides), so ``unmake`` restores the state and key exactly.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numba import njit

# header fields of st
W, H, LIMIT, T, SIDE, COUNT0, COUNT1, FLAG0, FLAG1, STATUS, REASON = range(11)
BOARD = 16
EMPTY, SOUTH, NORTH, WALL = 0, 1, 2, 3
ONGOING, SOUTH_WINS, NORTH_WINS, DRAW = 0, 1, 2, 3
REASON_NONE, REASON_FLAG, REASON_ANNIHILATION, REASON_LIMIT = 0, 1, 2, 3
REASONS = ("", "flag", "annihilation", "limit")
DESTRUCT = 8
DIRS = np.array(
    [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)], dtype=np.int64
)
MAX_MOVES = 256
UNDO_WIDTH = 14  # move, removed count, previous status, previous reason, 9 removed (cell*4+who)


@dataclass(frozen=True)
class FlagBotsConfig:
    """A map: size, move limit, walls. Defaults are the spec's 9 x 9, 80 plies, no walls."""

    width: int = 9
    height: int = 9
    limit: int = 80
    walls: tuple[tuple[int, int], ...] = ()

    @classmethod
    def wall_row(cls, width: int = 9, height: int = 9, limit: int = 80) -> FlagBotsConfig:
        """The variant with walls at y = H div 2 except at x = 0, W div 2 and W - 1."""
        y = height // 2
        gaps = {0, width // 2, width - 1}
        return cls(width, height, limit, tuple((x, y) for x in range(width) if x not in gaps))

    def check(self) -> None:
        if not (5 <= self.width <= 32 and 5 <= self.height <= 32):
            raise ValueError(f"board {self.width} x {self.height}: sides must be in 5..32")
        if not 1 <= self.limit <= 10_000:
            raise ValueError(f"limit {self.limit}: must be in 1..10000")
        for x, y in self.walls:
            if not (0 <= x < self.width and 0 <= y < self.height):
                raise ValueError(f"wall ({x}, {y}) is off the board")
            if y in (0, 1, self.height - 2, self.height - 1):
                raise ValueError(f"wall ({x}, {y}) is on a start or flag row")


def new_state(cfg: FlagBotsConfig) -> np.ndarray:
    """The start position: South robots on (x, 1), North on (x, H-2), x = 1..W-2."""
    cfg.check()
    w, h = cfg.width, cfg.height
    st = np.zeros(BOARD + w * h, dtype=np.int64)
    st[W], st[H], st[LIMIT], st[SIDE] = w, h, cfg.limit, 0
    st[FLAG0], st[FLAG1] = w // 2, (h - 1) * w + w // 2
    for x, y in cfg.walls:
        st[BOARD + y * w + x] = WALL
    for x in range(1, w - 1):
        st[BOARD + w + x] = SOUTH
        st[BOARD + (h - 2) * w + x] = NORTH
    st[COUNT0] = st[COUNT1] = w - 2
    return st


def zobrist_table(cfg: FlagBotsConfig, seed: int = 2026) -> np.ndarray:
    """Random keys: 2 per cell (South, North), one for North to move, one per ply 0..L."""
    rng = np.random.default_rng(seed)
    n = 2 * cfg.width * cfg.height + 1 + cfg.limit + 1
    return rng.integers(0, 2**63 - 1, size=n, dtype=np.int64)


@njit(cache=True)
def piece_key(zob, cell, who):
    return zob[2 * cell + who - 1]


@njit(cache=True)
def full_hash(st, zob):
    w, h = st[W], st[H]
    key = np.int64(0)
    for cell in range(w * h):
        who = st[BOARD + cell]
        if who == SOUTH or who == NORTH:
            key ^= piece_key(zob, cell, who)
    if st[SIDE] == 1:
        key ^= zob[2 * w * h]
    key ^= zob[2 * w * h + 1 + st[T]]
    return key


@njit(cache=True)
def generate(st, out, prune_destructs) -> int:
    """Legal moves of the side to move into ``out``; returns how many (0 at a terminal)."""
    if st[STATUS] != ONGOING:
        return 0
    w, h = st[W], st[H]
    me = st[SIDE] + 1
    own_flag = st[FLAG0] if me == SOUTH else st[FLAG1]
    n = 0
    for cell in range(w * h):
        if st[BOARD + cell] != me:
            continue
        x, y = cell % w, cell // w
        for k in range(8):
            nx, ny = x + DIRS[k, 0], y + DIRS[k, 1]
            if nx < 0 or ny < 0 or nx >= w or ny >= h:
                continue
            target = ny * w + nx
            if st[BOARD + target] != EMPTY or target == own_flag:
                continue
            out[n] = cell * 9 + k
            n += 1
        if prune_destructs:
            hits = False
            for dy in range(-1, 2):
                for dx in range(-1, 2):
                    nx, ny = x + dx, y + dy
                    if 0 <= nx < w and 0 <= ny < h:
                        v = st[BOARD + ny * w + nx]
                        if v != me and (v == SOUTH or v == NORTH):
                            hits = True
            if not hits:
                continue
        out[n] = cell * 9 + DESTRUCT
        n += 1
    return n


@njit(cache=True)
def _finish_ply(st, mover, moved_to, zob, key):
    """Advance the ply counter and apply the end rules; returns the updated key."""
    w, h = st[W], st[H]
    key ^= zob[2 * w * h + 1 + st[T]]
    st[T] += 1
    key ^= zob[2 * w * h + 1 + st[T]]
    st[SIDE] = 1 - st[SIDE]
    key ^= zob[2 * w * h]
    enemy_flag = st[FLAG1] if mover == SOUTH else st[FLAG0]
    if moved_to == enemy_flag:
        st[STATUS] = SOUTH_WINS if mover == SOUTH else NORTH_WINS
        st[REASON] = REASON_FLAG
    elif st[COUNT0] == 0 and st[COUNT1] == 0:
        st[STATUS] = DRAW
        st[REASON] = REASON_ANNIHILATION
    elif st[COUNT0] == 0 or st[COUNT1] == 0:
        st[STATUS] = NORTH_WINS if st[COUNT0] == 0 else SOUTH_WINS
        st[REASON] = REASON_ANNIHILATION
    elif st[T] >= st[LIMIT]:
        st[STATUS] = limit_result(st)
        st[REASON] = REASON_LIMIT
    return key


@njit(cache=True)
def make(st, undo, zob, key, move):
    """Play ``move`` (assumed legal); returns the new key."""
    t = st[T]
    undo[t, 0] = move
    undo[t, 1] = 0
    undo[t, 2] = st[STATUS]
    undo[t, 3] = st[REASON]
    w, h = st[W], st[H]
    mover = st[SIDE] + 1
    cell = move // 9
    k = move % 9
    moved_to = -1
    if k < DESTRUCT:
        target = (cell // w + DIRS[k, 1]) * w + cell % w + DIRS[k, 0]
        st[BOARD + cell] = EMPTY
        st[BOARD + target] = mover
        key ^= piece_key(zob, cell, mover) ^ piece_key(zob, target, mover)
        moved_to = target
    else:
        x, y = cell % w, cell // w
        removed = 0
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                nx, ny = x + dx, y + dy
                if 0 <= nx < w and 0 <= ny < h:
                    c = ny * w + nx
                    v = st[BOARD + c]
                    if v == SOUTH or v == NORTH:
                        undo[t, 4 + removed] = c * 4 + v
                        removed += 1
                        st[BOARD + c] = EMPTY
                        st[COUNT0 + v - 1] -= 1
                        key ^= piece_key(zob, c, v)
        undo[t, 1] = removed
    return _finish_ply(st, mover, moved_to, zob, key)


@njit(cache=True)
def unmake(st, undo, zob, key):
    """Take back the last ply; returns the restored key."""
    w, h = st[W], st[H]
    key ^= zob[2 * w * h + 1 + st[T]]
    st[T] -= 1
    key ^= zob[2 * w * h + 1 + st[T]]
    st[SIDE] = 1 - st[SIDE]
    key ^= zob[2 * w * h]
    t = st[T]
    move = undo[t, 0]
    st[STATUS] = undo[t, 2]
    st[REASON] = undo[t, 3]
    mover = st[SIDE] + 1
    cell = move // 9
    k = move % 9
    if k < DESTRUCT:
        target = (cell // w + DIRS[k, 1]) * w + cell % w + DIRS[k, 0]
        st[BOARD + target] = EMPTY
        st[BOARD + cell] = mover
        key ^= piece_key(zob, cell, mover) ^ piece_key(zob, target, mover)
    else:
        for i in range(undo[t, 1]):
            code = undo[t, 4 + i]
            c, v = code // 4, code % 4
            st[BOARD + c] = v
            st[COUNT0 + v - 1] += 1
            key ^= piece_key(zob, c, v)
    return key


@lru_cache(maxsize=64)
def mtf_table(cfg: FlagBotsConfig, side: int) -> np.ndarray:
    """Fewest moves from each cell to the enemy flag on the robot-free board (BFS; walls block,
    the own flag is impassable); a large value where the flag cannot be reached. Read-only and
    kept per map: every new position of a map needs it (the arena starts thousands)."""
    w, h = cfg.width, cfg.height
    walls = set(cfg.walls)
    own = (w // 2, 0) if side == 0 else (w // 2, h - 1)
    goal = (w // 2, h - 1) if side == 0 else (w // 2, 0)
    far = w * h
    dist = np.full(w * h, far, dtype=np.int64)
    dist[goal[1] * w + goal[0]] = 0
    queue = deque([goal])
    while queue:
        x, y = queue.popleft()
        for dx, dy in DIRS:
            nx, ny = x + int(dx), y + int(dy)
            if 0 <= nx < w and 0 <= ny < h and (nx, ny) not in walls and (nx, ny) != own:
                c = ny * w + nx
                if dist[c] == far:
                    dist[c] = dist[y * w + x] + 1
                    queue.append((nx, ny))
    dist.setflags(write=False)
    return dist


@njit(cache=True)
def limit_result(st):
    """Limit scoring: more robots wins; then the smaller sorted mtf list; else a draw.

    Needs the mtf tables: they are stored after the board (see ``attach_tables``)."""
    if st[COUNT0] != st[COUNT1]:
        return SOUTH_WINS if st[COUNT0] > st[COUNT1] else NORTH_WINS
    w, h = st[W], st[H]
    n = w * h
    south = np.empty(st[COUNT0], dtype=np.int64)
    north = np.empty(st[COUNT1], dtype=np.int64)
    i = j = 0
    for cell in range(n):
        v = st[BOARD + cell]
        if v == SOUTH:
            south[i] = st[BOARD + n + cell]
            i += 1
        elif v == NORTH:
            north[j] = st[BOARD + 2 * n + cell]
            j += 1
    south.sort()
    north.sort()
    for k in range(len(south)):
        if south[k] != north[k]:
            return SOUTH_WINS if south[k] < north[k] else NORTH_WINS
    return DRAW


def attach_tables(st: np.ndarray, cfg: FlagBotsConfig) -> np.ndarray:
    """Append the mtf tables (South's, then North's) to a state, as kernels expect."""
    return np.concatenate([st, mtf_table(cfg, 0), mtf_table(cfg, 1)])


def initial(cfg: FlagBotsConfig) -> np.ndarray:
    """The start position with its mtf tables attached."""
    return attach_tables(new_state(cfg), cfg)


@njit(cache=True)
def perft(st, undo, zob, key, depth, buffers, prune_destructs):
    """Number of leaf positions ``depth`` plies ahead (terminal positions end a line early)."""
    if depth == 0:
        return 1
    moves = buffers[depth]
    n = generate(st, moves, prune_destructs)
    if n == 0:
        return 1
    total = 0
    for i in range(n):
        key2 = make(st, undo, zob, key, moves[i])
        total += perft(st, undo, zob, key2, depth - 1, buffers, prune_destructs)
        unmake(st, undo, zob, key2)
    return total
