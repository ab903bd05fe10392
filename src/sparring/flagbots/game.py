"""FlagBots for people, tests and the arena: a Position with the game API and text moves.

``Position`` is a ``sparring.game_api.GameState`` as it is (moves are ints ``cell * 9 + k``, k
the index of ``rules.DIRS`` or 8 for a self-destruct; the observation is the position as text,
FlagBots has no hidden information and no chance) and ``GAME`` its ``game_api.Game``.

Moves are written ``c2-d3`` (a step; columns a.., rows 1..) or ``x c2`` (self-destruct).

Positions are written as text (``Position.to_text`` / ``from_text``), like chess's FEN:

    <rows> <side> <plies left>      e.g. the start: 9/1NNNNNNN1/9/9/9/9/9/1SSSSSSS1/9 s 80

``<rows>`` lists the board from the top row (North's side) down, rows separated by ``/``: ``S``
a South robot, ``N`` a North robot, ``#`` a wall, a number that many empty cells. The board size
is what the rows say (width = cells per row, height = rows); each side's robots are the letters
on it. Flags are where the rules put them: South's at the bottom row's middle cell (x = W div
2), North's at the top row's. ``<side>`` is ``s`` or ``n`` (to move) and ``<plies left>`` the
plies until the move limit.

For the OpenSpiel and PettingZoo bridges (#50) ``FlagBotsGame`` also gives its whole move set,
``actions()`` (an action's index is its id there), and an observation as numbers, ``encode``:

- the moves are the ints ``cell * 9 + k`` that some position of the game's board can offer: a
  step from a cell to a neighbouring cell on the board, or a self-destruct; none from or into a
  wall, none from a flag (a robot never stands on its own flag, and one on the other's has won).
  That is 613 moves on the 9 x 9 board without walls (of the 729 ints below ``cells * 9``);
- ``encode(observation)`` reads the observation's text alone into ``PLANES`` planes of the
  board, shape ``(9, height, width)``, indexed ``[plane, y, x]`` with y = 0 the bottom row
  (South's), so ``plane.reshape(-1)[cell]`` is a cell; every value is in [0, 1].
"""

from __future__ import annotations

import copy
import functools
import random
import re
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from sparring.flagbots.rules import (
    BOARD,
    COUNT0,
    COUNT1,
    DESTRUCT,
    DIRS,
    DRAW,
    EMPTY,
    FLAG0,
    FLAG1,
    LIMIT,
    MAX_MOVES,
    NORTH,
    NORTH_WINS,
    ONGOING,
    REASON,
    REASON_ANNIHILATION,
    REASON_FLAG,
    REASON_NONE,
    REASONS,
    SIDE,
    SOUTH,
    SOUTH_WINS,
    STATUS,
    UNDO_WIDTH,
    WALL,
    FlagBotsConfig,
    H,
    T,
    W,
    full_hash,
    generate,
    initial,
    make,
    unmake,
    zobrist_table,
)
from sparring.flagbots.traits import FlagBotsTraits
from sparring.game_api import TERMINAL, Game, IllegalActionError

_STEP = re.compile(r"^([a-z])(\d+)-([a-z])(\d+)$")
_PIECES = {"S": SOUTH, "N": NORTH, "#": WALL}
_LETTERS = {v: k for k, v in _PIECES.items()}
_CELL_CHARS = {EMPTY: ".", **_LETTERS}
_RUN = re.compile(r"\d+")
_LONG_RUN = re.compile(r"0|\d\d")  # a run written with two digits (or a zero run, refused)
_DOTS = str.maketrans({str(n): "." * n for n in range(1, 10)})  # each one-digit run as dots
# a cell's character -> its value, -1 for a character that is no cell (encode reads a whole
# board with one lookup)
_CELL_OF = np.full(256, -1, np.int8)
for _char, _value in {**_PIECES, ".": EMPTY}.items():
    _CELL_OF[ord(_char)] = _value
_BLAST = re.compile(r"^x\s*([a-z])(\d+)$")


class IllegalMoveError(IllegalActionError):
    """A move that is not legal here; the message says why."""


class Position:
    """A FlagBots game in progress: ``legal_actions``, ``apply_action``, ``undo``, ``returns``."""

    def __init__(self, cfg: FlagBotsConfig | None = None) -> None:
        self.cfg = cfg or FlagBotsConfig()
        self.st = initial(self.cfg)
        self.zob = zobrist_table(self.cfg)
        self.undo_buf = np.zeros((self.cfg.limit + 1, UNDO_WIDTH), np.int64)
        self.key = full_hash(self.st, self.zob)

    # --- the game API
    def current_player(self) -> int:
        """0 South, 1 North to move; ``TERMINAL`` once the game is over."""
        return TERMINAL if self.is_terminal() else int(self.st[SIDE])

    def legal_actions(self, prune_destructs: bool = False) -> list[int]:
        out = np.zeros(MAX_MOVES, np.int64)
        n = generate(self.st, out, prune_destructs)
        return out[:n].tolist()

    def apply_action(self, move: int) -> None:
        """Play ``move``; anything but a legal move (a bool, text, another number) raises
        ``IllegalMoveError`` and changes nothing."""
        if isinstance(move, bool) or not isinstance(move, int | np.integer):
            raise IllegalMoveError(f"{move!r} is not a move (moves are ints)")
        if int(move) not in self.legal_actions():
            cells = int(self.st[W]) * int(self.st[H])
            shown = self.move_text(int(move)) if 0 <= move < cells * 9 else str(move)
            raise IllegalMoveError(f"{shown} is not legal here")
        self.key = int(make(self.st, self.undo_buf, self.zob, np.int64(self.key), int(move)))

    def undo(self) -> None:
        if self.st[T] == 0:
            raise IllegalMoveError("nothing to undo")
        self.key = int(unmake(self.st, self.undo_buf, self.zob, np.int64(self.key)))

    def is_terminal(self) -> bool:
        return int(self.st[STATUS]) != ONGOING

    def returns(self) -> tuple[int, int]:
        """(South, North): +1 win, 0 draw, -1 loss (0, 0 while the game is on)."""
        status = int(self.st[STATUS])
        if status in (ONGOING, DRAW):
            return 0, 0
        return (1, -1) if status == SOUTH_WINS else (-1, 1)

    def observation(self, player: int) -> dict[str, Any]:
        """The whole position (perfect information): the same for both players but ``player``."""
        return {
            "player": player,
            "position": self.to_text(),
            "to_move": self.current_player(),
            "ply": self.ply,
            "reason": self.reason,
        }

    def clone(self) -> Position:
        """An independent copy (board and undo history copied, the Zobrist table shared)."""
        other = copy.copy(self)
        other.st, other.undo_buf = self.st.copy(), self.undo_buf.copy()
        return other

    @property
    def reason(self) -> str:
        return REASONS[int(self.st[REASON])]

    @property
    def ply(self) -> int:
        return int(self.st[T])

    # --- positions as text
    @classmethod
    def from_text(cls, text: str) -> Position:
        """The position written in ``text`` (see the module docstring); ValueError saying what
        is wrong otherwise. The game continues from it with ``plies left`` as its move limit."""
        parts = text.split()
        if len(parts) != 3:
            raise ValueError(f"{text!r}: expected '<rows> <side> <plies left>', e.g. {START!r}")
        rows_text, side, left = parts
        if side not in ("s", "n"):
            raise ValueError(f"{text!r}: the side to move is s or n, not {side!r}")
        if not left.isdigit() or int(left) < 1:
            raise ValueError(f"{text!r}: plies left must be an integer >= 1, not {left!r}")
        rows = [_parse_row(row, text) for row in rows_text.split("/")]
        width, height = len(rows[0]), len(rows)
        if any(len(row) != width for row in rows):
            raise ValueError(f"{text!r}: every row must have {width} cells")
        board = rows[::-1]  # text lists the top row first; y = 0 is the bottom
        walls = tuple((x, y) for y in range(height) for x in range(width) if board[y][x] == WALL)
        cfg = FlagBotsConfig(width, height, int(left), walls)
        cfg.check()  # board size and wall rules
        pos = cls(cfg)
        st = pos.st
        for y in range(height):
            for x in range(width):
                st[BOARD + y * width + x] = board[y][x]
        st[COUNT0] = sum(row.count(SOUTH) for row in board)
        st[COUNT1] = sum(row.count(NORTH) for row in board)
        if st[BOARD + st[FLAG0]] == SOUTH or st[BOARD + st[FLAG1]] == NORTH:
            raise ValueError(f"{text!r}: a robot stands on its own flag")
        st[SIDE] = 0 if side == "s" else 1
        st[STATUS], st[REASON] = _status(st)
        pos.key = int(full_hash(st, pos.zob))
        return pos

    def to_text(self) -> str:
        """This position as text; ``Position.from_text(p.to_text()).to_text() == p.to_text()``."""
        w, h = int(self.st[W]), int(self.st[H])
        # each cell as one character ('.' empty), then every run of dots as its length (the
        # longest runs first, so a shorter run is never part of a longer one)
        cells = "".join([_CELL_CHARS[v] for v in self.st[BOARD : BOARD + w * h].tolist()])
        text = "/".join(cells[y * w : (y + 1) * w] for y in range(h - 1, -1, -1))
        for run in range(w, 0, -1):
            text = text.replace("." * run, str(run))
        side = "s" if int(self.st[SIDE]) == 0 else "n"
        return f"{text} {side} {int(self.st[LIMIT]) - int(self.st[T])}"

    # --- text
    def cell_name(self, cell: int) -> str:
        w = int(self.st[W])
        return f"{chr(ord('a') + cell % w)}{cell // w + 1}"

    def move_text(self, move: int) -> str:
        cell, k = divmod(move, 9)
        if k == DESTRUCT:
            return f"x {self.cell_name(cell)}"
        w = int(self.st[W])
        target = (cell // w + int(DIRS[k, 1])) * w + cell % w + int(DIRS[k, 0])
        return f"{self.cell_name(cell)}-{self.cell_name(target)}"

    def _cell(self, col: str, row: str, text: str) -> int:
        w, h = int(self.st[W]), int(self.st[H])
        x, y = ord(col) - ord("a"), int(row) - 1
        if not (0 <= x < w and 0 <= y < h):
            raise IllegalMoveError(f"{text!r}: {col}{row} is off the {w} x {h} board")
        return y * w + x

    def parse_move(self, text: str) -> int:
        """A legal move from text, or IllegalMoveError saying exactly what is wrong."""
        t = text.strip().lower()
        me = self.current_player() + 1
        if m := _BLAST.match(t):
            cell = self._cell(m.group(1), m.group(2), text)
            if self.st[BOARD + cell] != me:
                raise IllegalMoveError(f"{text!r}: no robot of yours on {self.cell_name(cell)}")
            return cell * 9 + DESTRUCT
        m = _STEP.match(t)
        if not m:
            raise IllegalMoveError(f"{text!r}: write a step like c2-d3 or a blast like x c2")
        src = self._cell(m.group(1), m.group(2), text)
        dst = self._cell(m.group(3), m.group(4), text)
        w = int(self.st[W])
        dx, dy = dst % w - src % w, dst // w - src // w
        if self.st[BOARD + src] != me:
            raise IllegalMoveError(f"{text!r}: no robot of yours on {self.cell_name(src)}")
        if max(abs(dx), abs(dy)) != 1:
            raise IllegalMoveError(f"{text!r}: a robot moves one step to a neighbouring cell")
        target = int(self.st[BOARD + dst])
        if target == WALL:
            raise IllegalMoveError(f"{text!r}: {self.cell_name(dst)} is a wall")
        if target != EMPTY:
            raise IllegalMoveError(f"{text!r}: {self.cell_name(dst)} is occupied")
        own_flag = int(self.st[FLAG0] if me == SOUTH else self.st[FLAG1])
        if dst == own_flag:
            raise IllegalMoveError(f"{text!r}: a robot may not enter its own flag")
        k = next(i for i in range(8) if (int(DIRS[i, 0]), int(DIRS[i, 1])) == (dx, dy))
        return src * 9 + k

    def render(self) -> str:
        """ASCII board, North at the top: S/N robots, F/f flags (South's/North's), # walls."""
        w, h = int(self.st[W]), int(self.st[H])
        lines = []
        for y in range(h - 1, -1, -1):
            row = []
            for x in range(w):
                c = y * w + x
                v = int(self.st[BOARD + c])
                ch = {SOUTH: "S", NORTH: "N", WALL: "#"}.get(v, ".")
                if v == EMPTY and c == self.st[FLAG0]:
                    ch = "F"
                elif v == EMPTY and c == self.st[FLAG1]:
                    ch = "f"
                row.append(ch)
            lines.append(f"{y + 1:>2} " + " ".join(row))
        lines.append("   " + " ".join(chr(ord("a") + x) for x in range(w)))
        return "\n".join(lines)


START = "9/1NNNNNNN1/9/9/9/9/9/1SSSSSSS1/9 s 80"
"""The default start position as text."""

PLANES = (
    "south",  # 1 on a South robot
    "north",  # 1 on a North robot
    "wall",  # 1 on a wall
    "south_flag",  # 1 on South's flag (bottom row, x = W div 2)
    "north_flag",  # 1 on North's flag (top row, x = W div 2)
    "north_to_move",  # all 1 when North is to move (the text's side, also once it is over)
    "observer_north",  # all 1 when the observation is North's (player 1)
    "plies_left",  # all plies left / the move limit (ply + plies left)
    "over",  # all 1 once the game is over
)
"""The planes of ``FlagBotsGame.encode``, in order."""


class _Board:
    """What the bridges need of a game's board: its size, walls, flags and every move."""

    def __init__(self, start: Position) -> None:
        st = start.st
        self.width, self.height = w, h = int(st[W]), int(st[H])
        board = st[BOARD : BOARD + w * h]
        blocked = set(np.flatnonzero(board == WALL).tolist()) | {int(st[FLAG0]), int(st[FLAG1])}
        moves = []
        for cell in range(w * h):
            if cell in blocked:  # a wall, or a flag: no robot ever moves from there
                continue
            x, y = cell % w, cell // w
            for k in range(8):
                nx, ny = x + int(DIRS[k, 0]), y + int(DIRS[k, 1])
                if 0 <= nx < w and 0 <= ny < h and board[ny * w + nx] != WALL:
                    moves.append(cell * 9 + k)
            moves.append(cell * 9 + DESTRUCT)
        self.actions = tuple(moves)


@functools.lru_cache(maxsize=64)
def _board_of(text: str | None, cfg: FlagBotsConfig | None) -> _Board:
    return _Board(Position.from_text(text) if text else Position(cfg))


class FlagBotsGame(FlagBotsTraits):
    """FlagBots as a ``game_api.Game``: the start position, or the one written in ``text``.
    Two players (0 South, 1 North), zero-sum; the seed is unused (there is no chance: the
    arena varies a unit's start with random plies, ``flagbots.traits``)."""

    name = "flagbots"
    num_players = 2
    constant_sum = 0.0
    # for the bridges (#50): every observation shows the whole position (OpenSpiel's game type
    # says perfect information, so its perfect-information algorithms take it), and a seat's
    # return is -1, 0 or +1
    perfect_information = True
    utility_range = (-1.0, 1.0)

    def __init__(self, text: str | None = None, cfg: FlagBotsConfig | None = None) -> None:
        self.text, self.cfg = text, cfg

    def new_state(self, seed: int) -> Position:
        return Position.from_text(self.text) if self.text else Position(self.cfg)

    # ---------------------------------------------------------------- for the bridges (#50)
    def actions(self) -> Sequence[int]:
        """Every move a position of this game's board can offer, ascending (see the module
        docstring): 613 on the 9 x 9 board without walls."""
        return _board_of(self.text, self.cfg).actions

    def observation_shape(self) -> tuple[int, ...]:
        """``(len(PLANES), height, width)``: (9, 9, 9) on the spec's board."""
        board = _board_of(self.text, self.cfg)
        return len(PLANES), board.height, board.width

    def encode(self, observation: dict[str, Any]) -> np.ndarray:
        """An ``observation`` (and nothing else) as ``PLANES`` float32 planes in [0, 1]; a
        ValueError for a position of another board size."""
        shape = self.observation_shape()
        text = observation["position"]
        rows_text, side, left = text.split()
        h, w = shape[1:]
        # every run of empty cells written out as dots, then the whole board read at once
        # (one-digit runs, every 9 x 9 board's, by one translation; longer ones by the regex)
        long = _LONG_RUN.search(rows_text)
        cells = _RUN.sub(_empty_run, rows_text) if long else rows_text.translate(_DOTS)
        rows = cells.split("/")[::-1]  # y = 0 first
        if len(rows) != h or any(len(row) != w for row in rows):
            raise ValueError(f"{text!r} is not a position of a {w} x {h} board")
        codes = _CELL_OF[np.frombuffer("".join(rows).encode(), np.uint8)]
        if codes.size != h * w or (codes < 0).any():
            raise ValueError(f"{text!r}: a cell is none of S, N, # or a number of empty cells")
        board = codes.reshape(h, w)
        planes = np.zeros(shape, dtype=np.float32)
        planes[0], planes[1], planes[2] = board == SOUTH, board == NORTH, board == WALL
        planes[3, 0, w // 2] = planes[4, h - 1, w // 2] = 1.0
        planes[5] = side == "n"
        planes[6] = observation["player"] == 1
        planes[7] = int(left) / (observation["ply"] + int(left))
        planes[8] = observation["to_move"] == TERMINAL
        return planes

    def snapshot(self, state: Position) -> Hashable:
        return state.st.tobytes(), state.key

    def illegal_actions(self, state: Position, rng: random.Random) -> Sequence[object]:
        legal = state.legal_actions()
        cells = int(state.cfg.width * state.cfg.height)
        candidates = [m for m in (rng.randrange(cells * 9) for _ in range(8)) if m not in legal]
        return [*candidates[:3], "a1-a2", state.move_text(legal[0]) if legal else "x a1"]

    def leaks(self, state: Position, player: int, observation: dict[str, Any]) -> list[str]:
        return []  # perfect information: nothing is hidden


GAME: Game[int] = FlagBotsGame()
"""The registered FlagBots: the spec's 9 x 9 board, 80 plies."""


def _empty_run(run: re.Match[str]) -> str:
    """A run of empty cells written as its length, as dots; a length below 1 is refused."""
    if int(run.group()) < 1:
        raise ValueError(f"{run.string!r}: an empty run is at least 1 cell")
    return "." * int(run.group())


def _parse_row(row: str, text: str) -> list[int]:
    cells: list[int] = []
    for run in re.findall(r"\d+|\D", row):
        if run.isdigit():
            if int(run) < 1:
                raise ValueError(f"{text!r}: an empty run is at least 1 cell")
            cells += [EMPTY] * int(run)
        elif run in _PIECES:
            cells.append(_PIECES[run])
        else:
            raise ValueError(f"{text!r}: {run!r} is not S, N, # or a number of empty cells")
    if not cells:
        raise ValueError(f"{text!r}: a row is empty")
    return cells


def _status(st: np.ndarray) -> tuple[int, int]:
    """(status, reason) of a position set up from text, by the rules' end conditions."""
    if st[BOARD + st[FLAG1]] == SOUTH:
        return SOUTH_WINS, REASON_FLAG
    if st[BOARD + st[FLAG0]] == NORTH:
        return NORTH_WINS, REASON_FLAG
    if st[COUNT0] == 0 and st[COUNT1] == 0:
        return DRAW, REASON_ANNIHILATION
    if st[COUNT0] == 0 or st[COUNT1] == 0:
        return (NORTH_WINS if st[COUNT0] == 0 else SOUTH_WINS), REASON_ANNIHILATION
    return ONGOING, REASON_NONE
