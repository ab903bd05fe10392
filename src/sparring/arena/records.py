"""Readable records of a contest's games (``games.txt``), beside the machine-readable
``games.jsonl``: each game replayed from its seed and opening through the game protocol, one
line per decision naming the seat, its agent and the action as the game writes it (FlagBots: a
move in the engine's notation, ``b2-b3``; Mus: its words; Eleusis: its guesses, twelve a line,
each with the feedback it got), then the end.

    game 3: unit 1, seed 1843..., flagbots
      start 5/1NNN1/5/1SSS1/5 s 20
      1. seat 1 (cmd:first_bot.sh): b2-b3
      ...
      end: returns [1, -1]; forfeit: seat 0 timeout (... did not answer in time)

A game may keep a record of its own instead (its ``history``: poker's ACPC dealer's hand
histories, ``hands.log``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from sparring.game_api import IllegalActionError


def _action_text(state: Any, action: Any) -> str:
    move_text = getattr(state, "move_text", None)  # FlagBots writes moves as text
    if callable(move_text) and isinstance(action, int):
        return str(move_text(action))
    return str(action)


def game_record(
    game: Any,
    number: int,
    row: dict[str, Any],
    names: Sequence[str],
) -> str:
    """The text record of one game of ``games.jsonl`` (``row``: its unit, seed, opening,
    actions and forfeit; ``names``: the agent in each seat)."""
    state = game.new_state(row["seed"])
    lines = [f"game {number}: unit {row['unit']}, seed {row['seed']}, {game.name}"]
    opening = [_action_text(state, a) for a in row.get("opening") or ()]
    for action in row.get("opening") or ():
        state.apply_action(action)
    start = getattr(state, "to_text", None)
    if callable(start):
        lines.append(f"  start {start()}" + (f" (after {' '.join(opening)})" if opening else ""))
    if callable(getattr(state, "feedback_text", None)):  # Eleusis: thousands of guesses
        lines += _guesses(state, row["actions"], names[0] if names else "?")
        row = {**row, "actions": []}
    for ply, action in enumerate(row["actions"], start=1):
        seat = state.current_player()
        who = names[seat] if 0 <= seat < len(names) else "?"
        text = _action_text(state, action)
        lines.append(f"  {ply}. seat {seat} ({who}): {text}")
        try:
            state.apply_action(action)
        except IllegalActionError:  # (recorded games are legal: the arena refused the rest)
            lines.append("  (the record ends here: an action the game refuses on replay)")
            break
    end = f"  end: returns {[_number(r) for r in row['returns']]}"
    if row.get("forfeit_seat") is not None:
        seat = row["forfeit_seat"]
        end += f"; forfeit: seat {seat} {row['forfeit_kind']} ({row['forfeit_detail']})"
    if row.get("capped"):
        end += "; stopped at the decision cap (a draw)"
    lines.append(end)
    return "\n".join(lines) + "\n"


GUESSES_PER_LINE = 12


def _guesses(state: Any, actions: Sequence[Any], who: str) -> list[str]:
    """A one-player game of guesses with feedback (Eleusis), ``GUESSES_PER_LINE`` guesses a
    line, each followed by its feedback mark: 2,000 guesses are 167 lines, not 2,000."""
    lines = [f"  guesses of {who} (= both right, s suit, n number, - neither):"]
    marks = []
    for action in actions:
        try:
            state.apply_action(action)
        except IllegalActionError:
            marks.append(f"{action} (refused on replay)")
            break
        marks.append(f"{action}{state.feedback_text()}")
    for first in range(0, len(marks), GUESSES_PER_LINE):
        chunk = marks[first : first + GUESSES_PER_LINE]
        lines.append(f"  {first + 1}-{first + len(chunk)}: {', '.join(chunk)}")
    return lines


def _number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


def games_text(game: Any, rows: Iterable[dict[str, Any]], short: Callable[[str], str] = str) -> str:
    """Every game's record, numbered in the order of ``rows`` (``games.jsonl``'s);
    ``short(spec)``: how an agent is named."""
    return "\n".join(
        game_record(game, number, row, [short(spec) for spec in row["seats"]])
        for number, row in enumerate(rows)
    )


__all__ = ["game_record", "games_text"]
