"""The site's pictures, drawn as SVG from the code itself (``docs/generate.py`` writes them to
``docs/img/`` and checks them for staleness): a FlagBots position, a poker hand replayed, an
arena's ratings with their intervals, and the layers of the house.

Each is played or read in this process, without Ray, with fixed seeds: the same code gives the
same picture byte for byte.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FONT = "font-family='ui-monospace, SFMono-Regular, Menlo, monospace'"
SANS = "font-family='system-ui, -apple-system, Segoe UI, Roboto, sans-serif'"
INK, MUTED, LINE = "#1f2937", "#6b7280", "#d1d5db"
SOUTH, NORTH = "#2563eb", "#dc2626"


def _svg(width: int, height: int, body: Sequence[str], title: str) -> str:
    return "\n".join(
        [
            f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
            f"viewBox='0 0 {width} {height}' role='img' aria-label='{escape(title)}'>",
            f"<title>{escape(title)}</title>",
            f"<rect width='{width}' height='{height}' fill='white'/>",
            *body,
            "</svg>",
            "",
        ]
    )


def _text(x: float, y: float, text: str, size: int = 13, fill: str = INK, **attrs: str) -> str:
    extra = " ".join(f"{k.replace('_', '-')}='{v}'" for k, v in attrs.items())
    return (
        f"<text x='{x:g}' y='{y:g}' font-size='{size}' fill='{fill}' {SANS} {extra}>"
        f"{escape(text)}</text>"
    )


# --- a FlagBots position --------------------------------------------------------------------


def flagbots_position() -> str:
    """The start position after four plies of the depth-3 engine against itself, with the
    flags, the side to move and the last move marked."""
    from sparring.flagbots.game import Position
    from sparring.flagbots.house import FlagBotsEngineAgent
    from sparring.flagbots.rules import BOARD, FLAG0, FLAG1, WALL, H, W
    from sparring.flagbots.rules import NORTH as N
    from sparring.flagbots.rules import SOUTH as S

    position = Position()
    engine = FlagBotsEngineAgent(depth=3, ms=None)
    moves = []
    for _ in range(4):
        observation = position.observation(position.current_player())
        move = engine.act(observation, position.legal_actions())
        moves.append(position.move_text(move))
        position.apply_action(move)
    st = position.st
    w, h, cell, pad = int(st[W]), int(st[H]), 40, 34
    size_x, size_y = pad + w * cell + 260, pad + h * cell + 40
    body = []
    for y in range(h):
        for x in range(w):
            px, py = pad + x * cell, pad + (h - 1 - y) * cell
            shade = "#f3f4f6" if (x + y) % 2 else "#ffffff"
            body.append(
                f"<rect x='{px}' y='{py}' width='{cell}' height='{cell}' fill='{shade}' "
                f"stroke='{LINE}'/>"
            )
            c = y * w + x
            value = int(st[BOARD + c])
            if c in (int(st[FLAG0]), int(st[FLAG1])):
                colour = SOUTH if c == int(st[FLAG0]) else NORTH
                body.append(
                    f"<path d='M{px + 12} {py + 32} V{py + 8} L{px + 30} {py + 14} L{px + 12} "
                    f"{py + 20}' fill='{colour}' fill-opacity='0.35' stroke='{colour}'/>"
                )
            if value in (S, N):
                colour = SOUTH if value == S else NORTH
                body.append(
                    f"<circle cx='{px + cell / 2}' cy='{py + cell / 2}' r='13' fill='{colour}'/>"
                )
            elif value == WALL:
                body.append(
                    f"<rect x='{px + 4}' y='{py + 4}' width='32' height='32' fill='{INK}'/>"
                )
        body.append(_text(pad - 18, pad + (h - 1 - y) * cell + 25, str(y + 1), 12, MUTED))
    for x in range(w):
        body.append(_text(pad + x * cell + 16, pad + h * cell + 18, chr(ord("a") + x), 12, MUTED))
    legend_x = pad + w * cell + 20
    side = "South" if position.current_player() == 0 else "North"
    lines = [
        ("South's robots", SOUTH),
        ("North's robots", NORTH),
        ("a flag (its owner's colour)", MUTED),
        ("", INK),
        ("the engine's first plies:", INK),
        ("  " + ", ".join(moves), INK),
        (f"{side} to move", INK),
        (f"text: {position.to_text().split()[0][:14]}…", MUTED),
    ]
    for i, (label, colour) in enumerate(lines):
        if label:
            body.append(_text(legend_x, pad + 16 + 22 * i, label, 12, colour))
    return _svg(size_x, size_y, body, "A FlagBots position: 9 x 9, South at the bottom")


# --- a poker hand replayed ------------------------------------------------------------------

SUITS = {"s": ("♠", INK), "h": ("♥", NORTH), "d": ("♦", NORTH), "c": ("♣", INK)}
PLAYERS = ("tight_aggressive", "calling_station", "maniac", "random")


def _card(x: float, y: float, card: str) -> list[str]:
    rank, (suit, colour) = card[0], SUITS[card[1]]
    return [
        f"<rect x='{x}' y='{y}' width='30' height='40' rx='4' fill='white' stroke='{MUTED}'/>",
        _text(x + 5, y + 18, rank, 14, colour, font_weight="bold"),
        _text(x + 14, y + 34, suit, 14, colour),
    ]


def _hand() -> tuple[Any, Any, list[str]]:
    """The first seed (from 0) whose hand at four seats of house players reaches a showdown
    with at least one raise after the flop: its final state and its actions."""
    from sparring.arena.agents import make, parse
    from sparring.arena.play import play_game
    from sparring.poker.game import Holdem
    from sparring.runtime.programs.program import Limits

    game = Holdem(len(PLAYERS))
    specs = [f"poker@{p}" for p in PLAYERS]
    for seed in range(200):
        agents = [make(parse(s), Limits()) for s in specs]
        record = play_game(game, agents, seed, names=specs, secret=b"docs/pictures")
        state = game.new_state(seed)
        for action in record.actions:
            state.apply_action(action)
        final = state.observation(0)
        later = [a for street in final["history"][1:] for _, a in street]
        if final["showdown"] and len(final["history"]) == 4 and "raise" in later:
            return game, state, specs
    raise RuntimeError("no hand of seeds 0..199 fits")


def poker_hand() -> str:
    """One hand of four house players, street by street: hole cards, board, every action, and
    what each seat won or lost."""
    _, state, specs = _hand()
    final = state.observation(0)
    streets = ("preflop", "flop", "turn", "river")
    board_at = (0, 3, 4, 5)
    seats = len(specs)
    col, row0, row_h = 150, 96, 54
    width, height = 230 + col * 4 + 80, row0 + row_h * seats + 40
    body = [_text(20, 28, "A hand of fixed-limit hold'em, four seats (seat 3 the button)", 15)]
    for k, street in enumerate(streets):
        x = 230 + col * k
        body.append(_text(x, 58, street, 13, MUTED, font_weight="bold"))
        # the cards this street shows: the flop's three side by side, the turn's and river's one
        for i, card in enumerate(final["board"][board_at[k - 1] if k else 0 : board_at[k]]):
            body += _card(x + 50 + 32 * i, 30, card)
    net = state.returns()
    for seat in range(seats):
        y = row0 + row_h * seat
        body.append(f"<line x1='16' x2='{width - 16}' y1='{y - 8}' y2='{y - 8}' stroke='{LINE}'/>")
        body.append(_text(20, y + 14, f"seat {seat}", 12, MUTED))
        body.append(_text(20, y + 32, specs[seat].removeprefix("poker@"), 12))
        for i, card in enumerate(state.observation(seat)["hole"]):
            body += _card(150 + 32 * i, y, card)
        for k, street in enumerate(final["history"]):
            words = [a for s, a in street if s == seat]
            text = " ".join(words) if words else ""
            body.append(_text(230 + col * k, y + 24, text, 12))
        won = net[seat] + 0.0  # (-0.0 shown as 0)
        colour = "#15803d" if won > 0 else (NORTH if won < 0 else MUTED)
        body.append(
            _text(
                230 + col * 4, y + 24, f"{won:+g}" if won else "0", 13, colour, font_weight="bold"
            )
        )
    body.append(_text(230 + col * 4, row0 - 16, "chips", 12, MUTED, font_weight="bold"))
    return _svg(width, height, body, "A poker hand replayed street by street")


# --- an arena's ratings ---------------------------------------------------------------------

ENTRANTS = ("random", "flagbots@depth=1", "flagbots@depth=2", "flagbots@depth=3")


def ratings() -> tuple[list[str], Any]:
    """A FlagBots round robin of the house engines and a random player (8 units a pair, each a
    game on each side from a two-ply opening), rated as the arena rates: Bradley–Terry on the
    Elo scale with 95% bootstrap intervals."""
    from sparring.arena.contest import Block, contest_secret, pair_scores, play_block
    from sparring.ga.round_robin import rate
    from sparring.runtime.programs.program import Limits

    secret = contest_secret(b"docs/pictures".ljust(32, b"."), 0)
    names, results = list(ENTRANTS), []
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    for a, b in pairs:
        block = Block("flagbots", a, b, 0, 8)
        results.append(
            play_block(block, secret=secret, limits=Limits(), opening_plies=2, withdraw_after=3)
        )
    edges = {}
    for a, b in pairs:
        edges[(names.index(a), names.index(b))] = pair_scores(results, a, b) - 0.5
    return names, rate(names, edges, bootstrap=200, seed=0)


def ratings_plot() -> str:
    names, rated = ratings()
    low, high = float(min(rated.low)) - 50, float(max(rated.high)) + 50
    left, right, top, row = 170, 640, 50, 42
    width, height = right + 40, top + row * len(names) + 50

    def x_of(v: float) -> float:
        return left + (v - low) / (high - low) * (right - left)

    body = [_text(20, 28, "Ratings of a FlagBots round robin (Elo scale, 95% intervals)", 15)]
    step = 200 if high - low > 800 else 100
    tick = int(low // step + 1) * step
    while tick < high:
        x = x_of(tick)
        body.append(f"<line x1='{x:.1f}' x2='{x:.1f}' y1='{top - 8}' y2='{height - 38}' "
                    f"stroke='{LINE}'/>")  # fmt: skip
        body.append(_text(x - 12, height - 20, f"{tick:+d}" if tick else "0", 11, MUTED))
        tick += step
    order = sorted(range(len(names)), key=lambda k: -rated.rating[k])
    for i, k in enumerate(order):
        y = top + row * i + row / 2
        body.append(_text(20, y + 4, names[k], 13))
        x0, x1, xm = x_of(rated.low[k]), x_of(rated.high[k]), x_of(rated.rating[k])
        body.append(f"<line x1='{x0:.1f}' x2='{x1:.1f}' y1='{y:.1f}' y2='{y:.1f}' "
                    f"stroke='{SOUTH}' stroke-width='3'/>")  # fmt: skip
        body.append(f"<circle cx='{xm:.1f}' cy='{y:.1f}' r='6' fill='{SOUTH}'/>")
        body.append(_text(x1 + 8, y + 4, f"{rated.rating[k]:+.0f}", 11, MUTED))
    return _svg(width, height, body, "Arena ratings with intervals")


# --- the layers of the house ----------------------------------------------------------------


def _layers() -> tuple[tuple[str, ...], ...]:
    """``LAYERS`` as tests/test_layering.py states it (read, not imported: the rule is there)."""
    tree = ast.parse((ROOT / "tests" / "test_layering.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "LAYERS":
            return ast.literal_eval(node.value)  # type: ignore[arg-type]
    raise RuntimeError("tests/test_layering.py states no LAYERS")


def layers_diagram() -> str:
    """The rooms of ``src/sparring``, one layer a row, top to bottom: a room imports only from
    the rows below it (tests/test_layering.py proves it)."""
    layers = [tuple(r for r in rooms if r != "__init__") for rooms in _layers()]
    box_w, box_h, gap, top = 128, 30, 10, 50
    widest = max(len(rooms) for rooms in layers)
    width = 40 + widest * (box_w + gap)
    height = top + len(layers) * (box_h + 14) + 20
    body = [_text(20, 28, "The layers of src/sparring: each row imports only from rows below", 14)]
    for i, rooms in enumerate(layers):
        y = top + i * (box_h + 14)
        x = (width - len(rooms) * (box_w + gap) + gap) / 2
        for room in rooms:
            fill = "#e0e7ff" if i < len(layers) - 1 else "#fef3c7"
            body.append(f"<rect x='{x:.0f}' y='{y}' width='{box_w}' height='{box_h}' rx='6' "
                        f"fill='{fill}' stroke='#6366f1'/>")  # fmt: skip
            body.append(
                f"<text x='{x + box_w / 2:.0f}' y='{y + 20}' font-size='13' fill='{INK}' "
                f"text-anchor='middle' {FONT}>{escape(room)}</text>"
            )
            x += box_w + gap
    return _svg(width, height, body, "The layers of the house")


PICTURES = {
    "flagbots-position.svg": flagbots_position,
    "poker-hand.svg": poker_hand,
    "arena-ratings.svg": ratings_plot,
    "layers.svg": layers_diagram,
}
"""File name under docs/img/ -> the function that draws it (SVG text)."""
