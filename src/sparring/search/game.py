"""FlagBots for people and tests: a Position with OpenSpiel-style methods and text moves.

Moves are written ``c2-d3`` (a step; columns a.., rows 1..) or ``x c2`` (self-destruct).
"""

from __future__ import annotations

import re

import numpy as np

from sparring.search.flagbots import (
    BOARD,
    DESTRUCT,
    DIRS,
    DRAW,
    EMPTY,
    FLAG0,
    FLAG1,
    MAX_MOVES,
    NORTH,
    ONGOING,
    REASON,
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

_STEP = re.compile(r"^([a-z])(\d+)-([a-z])(\d+)$")
_BLAST = re.compile(r"^x\s*([a-z])(\d+)$")


class IllegalMoveError(ValueError):
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
        return int(self.st[SIDE])

    def legal_actions(self, prune_destructs: bool = False) -> list[int]:
        out = np.zeros(MAX_MOVES, np.int64)
        n = generate(self.st, out, prune_destructs)
        return [int(m) for m in out[:n]]

    def apply_action(self, move: int) -> None:
        if move not in self.legal_actions():
            raise IllegalMoveError(f"{self.move_text(move)} is not legal here")
        self.key = int(make(self.st, self.undo_buf, self.zob, np.int64(self.key), move))

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

    @property
    def reason(self) -> str:
        return REASONS[int(self.st[REASON])]

    @property
    def ply(self) -> int:
        return int(self.st[T])

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
