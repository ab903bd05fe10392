"""``sparring play mus``: a person at seat 0 plays hands of Mus against bots.

The person is a ``Player`` like any bot (``HumanPlayer``), so the game runs through
``play_match`` with its decision log; with a model store the opponents are ModelingBots that
learn the person's play across sessions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sparring.mus.cards import FACES, SUITS, format_faces
from sparring.mus.engine import DISCARD, MUS, NO_MUS, MusGame
from sparring.mus.lance import Action
from sparring.mus.log import play_match
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


SHOWN = ("mus", "no_mus", "discard", "bet", "score", "reveal", "ordago", "juego", "vaca", "deal")
PRIVATE = ("cards", "discarded_cards")


def _words(detail: object) -> str:
    """An event's detail as a player reads it: ``('grande', Kind.paso)`` is "grande paso",
    whoever acted (a bot's moves are enum members, a person's are words)."""
    if detail is None:
        return ""
    if isinstance(detail, tuple | list):
        return " ".join(_words(part) for part in detail)
    if isinstance(detail, dict):
        return ", ".join(f"{key} {_words(value)}" for key, value in detail.items())
    value = getattr(detail, "value", detail)  # an enum member: its word
    return str(value).replace("_", " ")


class Quit(Exception):
    """The person left the table."""


class HumanPlayer:
    """A person at the terminal as a ``Player``: shows the public events as they happen, the
    cards and the legal moves, and asks until a legal command is typed."""

    def __init__(self, read: Callable[[str], str], write: Callable[[str], None]) -> None:
        self.read, self.write = read, write
        self.on_game_start()

    def on_game_start(self, models=None) -> None:
        self.shown = 0  # entries of the observation history already processed
        self.hand_public = 0  # public events of the current hand already shown
        self.skip_to_deal = False

    def _show(self, kind: str, seat: int | None, detail: object) -> None:
        if kind in SHOWN:
            who = "" if seat is None else f" seat {seat}"
            said = _words(detail)
            self.write(f"  [{kind}]{who}{': ' + said if said else ''}")

    def on_hand_end(self, revealed: tuple, public: tuple = ()) -> None:
        for kind, seat, detail in public[self.hand_public :]:
            self._show(kind, seat, detail)
        self.skip_to_deal = True  # the next observation repeats this hand's tail

    def act(self, observation: dict, legal: Sequence[str]) -> Action:
        history = observation["history"]
        for kind, seat, detail in history[self.shown :]:
            if kind == "deal":
                self.skip_to_deal, self.hand_public = False, 0
            if self.skip_to_deal or kind in PRIVATE:
                continue
            self.hand_public += 1
            self._show(kind, seat, detail)
        self.shown = len(history)
        cards = ", ".join(f"{i + 1}: {card_text(c)}" for i, c in enumerate(observation["hand"]))
        legal = observation["legal"]
        where = observation["lance"] or observation["phase"]
        scores = observation["scores"]
        self.write(
            f"scores A {scores[0]} - B {scores[1]} | {where} | your cards: {cards}"
            f" | you may: {', '.join(k.replace('_', ' ') for k in legal)}"
        )
        while True:
            try:
                text = self.read("your move> ")
            except EOFError:
                raise Quit from None
            if text.strip().lower() in ("quit", "exit", "q"):
                raise Quit
            try:
                action = parse_command(text)
                _check_legal(action, observation)
                return action
            except ValueError as exc:
                self.write(f"refused: {exc}")


def _check_legal(action: Action, observation: dict) -> None:
    legal = observation["legal"]
    if action.kind not in legal:
        allowed = ", ".join(k.replace("_", " ") for k in legal)
        raise ValueError(f"{action.kind.replace('_', ' ')} is not allowed now; you may: {allowed}")
    if action.kind in ("envido", "subir") and not 2 <= action.amount <= observation["max_amount"]:
        raise ValueError(f"{action}: bet between 2 and {observation['max_amount']}")


def play(
    read: Callable[[str], str],
    write: Callable[[str], None],
    seed: int = 0,
    hands: int = 1,
    store: str | None = None,
    player: str = "you",
) -> int:
    """Play ``hands`` hands; returns 0 (also when the person quits or input ends).

    Without ``store`` the other seats are synthetic bots. With ``store`` (a SQLite file) the
    opponents are ModelingBots that receive the model of ``player`` kept there, and after the
    game the post-game cycle updates it (and keeps the person's own replay)."""
    human = HumanPlayer(read, write)
    players: list = [human] + [SyntheticPlayer.with_rates(seed=seed * 4 + s) for s in (1, 2, 3)]
    models = None
    server = None
    if store is not None:
        from sparring.modeling.bot import ModelingBot
        from sparring.modeling.cycle import ModelServer

        server = ModelServer(store, humans=frozenset({player}))
        players[1], players[3] = ModelingBot(), ModelingBot()
        models = [None, server.models_for(1, {0: player}), None, server.models_for(3, {0: player})]
    write("Mus: you are seat 0 (team A with seat 2). " + HELP)
    try:
        state, records = play_match(MusGame(), players, seed, models=models, max_hands=hands)
    except Quit:
        write("bye")
        return 0
    finally:
        if server is not None and not locals().get("records"):
            server.close()
    done = min(state.hand_number - (0 if state.is_terminal() else 1), hands)
    write(
        f"after {done} hand(s): A {state.scores[0]} - B {state.scores[1]}, "
        f"juegos {state.juegos}, vacas {state.vacas}"
    )
    if server is not None:
        from sparring.modeling.summary import user_message

        own_view = [list(e) for e in state.observation(0)["history"]]
        logs = [players[1].calibration, players[3].calibration]
        server.after_game(f"seed-{seed}", records, {0: player}, logs, {player: own_view})
        write(user_message("en") + " / " + user_message("es"))
        server.close()
    return 0
