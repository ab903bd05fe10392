"""Readable records of a contest's games (``games.txt``), beside the machine-readable
``games.jsonl``: each game replayed from its seed and opening through the game protocol, one
line per decision naming the seat, its agent and the action as the game writes it (FlagBots: a
move in the engine's notation, ``b2-b3``; Mus and Eleusis: their words), then the end.

    game 3: unit 1, seed 1843..., flagbots
      start 5/1NNN1/5/1SSS1/5 s 20
      1. seat 1 (cmd:first_bot.sh): b2-b3
      ...
      end: returns [1, -1]; forfeit: seat 0 timeout (... did not answer in time)

Poker has its own record, the ACPC dealer's hand histories (``hands.log``).
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
