"""``sparring play mus``: a person at seat 0 plays hands of Mus against three synthetic bots."""

from __future__ import annotations

from collections.abc import Callable

from sparring.mus.cards import FACES, SUITS, format_faces
from sparring.mus.game import DISCARD, MUS, NO_MUS, MusGame, MusState
from sparring.mus.lance import Action, IllegalActionError
from sparring.mus.players import SyntheticPlayer

HELP = (
    "commands: mus | no mus | discard 1 3 (card positions) | paso | envido N | subir N | "
    "quiero | no quiero | ordago | quit"
)


def card_text(card: int) -> str:
    return f"{format_faces([FACES[card % 10]])} de {SUITS[card // 10]}"


def parse_command(text: str) -> Action:
    """A typed command as an Action, or ValueError saying what is wrong."""
    words = text.strip().lower().replace("órdago", "ordago").split()
    if not words:
        raise ValueError("type a command; " + HELP)
    joined = " ".join(words)
    simple = {
        "mus": Action(MUS),
        "no mus": Action(NO_MUS),
        "corto": Action(NO_MUS),
        "paso": Action("paso"),
        "quiero": Action("quiero"),
        "no quiero": Action("no_quiero"),
        "ordago": Action("ordago"),
    }
    if joined in simple:
        return simple[joined]
    if words[0] in ("envido", "subir"):
        if len(words) != 2 or not words[1].isdigit():
            raise ValueError(f"{joined!r}: write {words[0]} and a number, e.g. {words[0]} 2")
        return Action(words[0], int(words[1]))
    if words[0] == "discard":
        try:
            positions = {int(w) for w in words[1:]}
        except ValueError:
            raise ValueError(f"{joined!r}: give card positions 1..4, e.g. discard 1 3") from None
        if not positions or not positions <= {1, 2, 3, 4}:
            raise ValueError(f"{joined!r}: discard 1 to 4 cards by position 1..4")
        return Action(DISCARD, sum(1 << (p - 1) for p in positions))
    raise ValueError(f"{joined!r} is not a command; " + HELP)


def play(
    read: Callable[[str], str], write: Callable[[str], None], seed: int = 0, hands: int = 1
) -> int:
    """Play ``hands`` hands; returns 0 (also when the person quits or input ends)."""
    game = MusGame()
    state: MusState = game.new_initial_state(seed)
    bots = {s: SyntheticPlayer.with_rates(seed=seed * 4 + s) for s in (1, 2, 3)}
    seen = 0
    write("Mus: you are seat 0 (team A with seat 2). " + HELP)
    while not state.is_terminal() and state.hand_number <= hands:
        for event in state.events[seen:]:
            if event.visible_to is None and event.kind in (
                "mus",
                "no_mus",
                "discard",
                "bet",
                "score",
                "reveal",
                "ordago",
                "juego",
                "deal",
            ):
                write(f"  [{event.kind}] seat {event.seat}: {event.detail}")
        seen = len(state.events)
        seat = state.current_player()
        if seat != 0:
            state.apply_action(bots[seat].act(state.observation(seat)))
            continue
        cards = ", ".join(f"{i + 1}: {card_text(c)}" for i, c in enumerate(state.hands[0]))
        where = state.lance.name if state.phase == "betting" else state.phase
        write(
            f"scores A {state.scores[0]} - B {state.scores[1]} | {where} | your cards: {cards}"
            f" | you may: {', '.join(k.replace('_', ' ') for k in state.legal_kinds())}"
        )
        try:
            text = read("your move> ")
        except EOFError:
            write("bye")
            return 0
        if text.strip().lower() in ("quit", "exit", "q"):
            return 0
        try:
            state.apply_action(parse_command(text))
        except (ValueError, IllegalActionError) as exc:
            write(f"refused: {exc}")
    for event in state.events[seen:]:
        if event.visible_to is None:
            write(f"  [{event.kind}] seat {event.seat}: {event.detail}")
    write(
        f"after {state.hand_number - 1} hand(s): A {state.scores[0]} - B {state.scores[1]}, "
        f"juegos {state.juegos}, vacas {state.vacas}"
    )
    return 0
