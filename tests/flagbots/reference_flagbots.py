"""A plain-Python FlagBots move generator written from the rules (specs/flagbots.md), sharing
no code with the kernels: the independent reference the perft file is checked against."""

from __future__ import annotations

import re

STEPS = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)]


class Board:
    """``rows[y][x]`` in "SN#." with y = 0 at the bottom, the side to move and plies left."""

    def __init__(self, text: str) -> None:
        rows_text, side, left = text.split()
        rows = []
        for row in rows_text.split("/"):
            cells = ""
            for run in re.findall(r"\d+|\D", row):
                cells += "." * int(run) if run.isdigit() else run
            rows.append(list(cells))
        self.rows = rows[::-1]
        self.w, self.h = len(self.rows[0]), len(self.rows)
        self.side = "S" if side == "s" else "N"
        self.left = int(left)
        self.flags = {"S": (self.w // 2, 0), "N": (self.w // 2, self.h - 1)}
        self.over = self._ended(None)

    def _count(self, who: str) -> int:
        return sum(row.count(who) for row in self.rows)

    def _ended(self, arrived: tuple[int, int] | None) -> bool:
        enemy = "N" if self.side == "S" else "S"
        if arrived is not None and arrived == self.flags[enemy]:
            return True
        (sx, sy), (nx, ny) = self.flags["S"], self.flags["N"]
        if self.rows[ny][nx] == "S" or self.rows[sy][sx] == "N":
            return True
        return self._count("S") == 0 or self._count("N") == 0 or self.left == 0

    def moves(self) -> list[tuple[int, int, int | None]]:
        """(x, y, step index) for steps, (x, y, None) for a self-destruct."""
        if self.over:
            return []
        out: list[tuple[int, int, int | None]] = []
        for y in range(self.h):
            for x in range(self.w):
                if self.rows[y][x] != self.side:
                    continue
                for k, (dx, dy) in enumerate(STEPS):
                    tx, ty = x + dx, y + dy
                    inside = 0 <= tx < self.w and 0 <= ty < self.h
                    if inside and self.rows[ty][tx] == "." and (tx, ty) != self.flags[self.side]:
                        out.append((x, y, k))
                out.append((x, y, None))
        return out

    def play(self, move: tuple[int, int, int | None]) -> Board:
        child = Board.__new__(Board)
        child.__dict__.update(self.__dict__)
        child.rows = [row[:] for row in self.rows]
        x, y, k = move
        arrived = None
        if k is None:  # blast: every robot in the 3 x 3 block around, own included
            for ty in range(y - 1, y + 2):
                for tx in range(x - 1, x + 2):
                    if 0 <= tx < self.w and 0 <= ty < self.h and child.rows[ty][tx] in "SN":
                        child.rows[ty][tx] = "."
        else:
            dx, dy = STEPS[k]
            child.rows[y][x], child.rows[y + dy][x + dx] = ".", self.side
            arrived = (x + dx, y + dy)
        child.left = self.left - 1
        child.over = child._ended(arrived)  # judged for the mover, before the turn passes
        child.side = "N" if self.side == "S" else "S"
        return child


def perft(board: Board, depth: int) -> int:
    """Leaf positions ``depth`` plies ahead; a finished game is a leaf."""
    if depth == 0:
        return 1
    moves = board.moves()
    if not moves:
        return 1
    if depth == 1:
        return len(moves)
    return sum(perft(board.play(m), depth - 1) for m in moves)
