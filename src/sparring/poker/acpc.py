"""The ACPC protocol's text forms for Sparring's hold'em: game definitions, match states and
the dealer's log lines.

The reference is the ACPC protocol specification 2.0.0 and the University of Alberta's dealer
(``project_acpc_server``: ``game.c`` reads game definitions and prints states, ``dealer.c``
logs them). Sparring's seats are the protocol's positions: seat 0 is the first player after the
button (the small blind at 3+ seats; heads up, Sparring's seat 0 posts the big blind, as in the
reference's "reverse blinds" games), and the engine's words map to the protocol's letters
(``fold`` ``f``, ``call`` ``c``, ``raise`` ``r``; ``k`` and ``b`` are read as call and raise).

- ``GameDef``, ``parse_gamedef`` (the reference's file format, strictly: an unknown line or a
  missing item is an error naming its line; what the reference dealer's checks refuse, it
  refuses), ``sparring_gamedef(seats)`` (the engine's rules written as one; at 5+ seats with
  the unlimited stacks listed, which the dealer presets for 4 players only), ``differences``
  (how a definition departs from them) and ``gamedef_path`` (the files shipped in
  ``data/acpc/``);
- ``match_state(observation, hand_number)``: the ``MATCHSTATE`` line a seat is sent, from that
  seat's ``game.HoldemHand.observation`` alone (others' cards only after a showdown);
  ``match_states``: every earlier state of the hand too, from the same observation;
- ``log_state(hand, hand_number, names)``: the dealer's ``STATE`` line of a finished hand, with
  every seat's value and name (``hand_history``: the same from a seed and its actions);
- ``parse_match_state`` and ``replay``: a received line back to a ``HoldemHand`` in the engine
  (the client's side), whose legal actions are those the line allows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from sparring.poker.cards import CARD_TEXTS
from sparring.poker.catalog import MAX_SEATS, MIN_SEATS
from sparring.poker.game import HoldemHand
from sparring.poker.rules import (
    MAX_BETS,
    bet_size,
    blind_seats,
    first_to_act,
)

VERSION = "VERSION:2.0.0"
LETTER = {"fold": "f", "call": "c", "raise": "r"}
WORD = {"f": "fold", "c": "call", "k": "call", "r": "raise", "b": "raise"}
WORD.update({k.upper(): v for k, v in WORD.items()})
BOARD_CARDS = (0, 3, 1, 1)
# the reference's "no stack limit" (INT32_MAX): its readGame presets it for the first
# DEALER_STACKS players only (a loop over MAX_ROUNDS, not MAX_PLAYERS) and refuses a larger
# table whose file lists no stacks ("only read 4 stack sizes, need 5")
UNLIMITED_STACK = 2**31 - 1
DEALER_STACKS = 4
GAMEDEF_DIR = Path(__file__).with_name("data") / "acpc"


class AcpcError(ValueError):
    """A game definition or a match state that cannot be read, in one line."""


@dataclass(frozen=True)
class GameDef:
    """A game definition, as the reference's ``game.h`` holds it (``first_player`` 1-based,
    as written in the file)."""

    betting: str
    num_players: int
    num_rounds: int
    blind: tuple[int, ...]
    raise_size: tuple[int, ...]
    first_player: tuple[int, ...]
    max_raises: tuple[int, ...]
    num_suits: int
    num_ranks: int
    num_hole_cards: int
    num_board_cards: tuple[int, ...]
    stack: tuple[int, ...] = ()


# the file's keys (matched case-insensitively, as the reference does) and the fields they fill
_KEYS = {
    "numplayers": "num_players",
    "numrounds": "num_rounds",
    "blind": "blind",
    "raisesize": "raise_size",
    "firstplayer": "first_player",
    "maxraises": "max_raises",
    "numsuits": "num_suits",
    "numranks": "num_ranks",
    "numholecards": "num_hole_cards",
    "numboardcards": "num_board_cards",
    "stack": "stack",
}
_LISTS = {"blind", "raise_size", "first_player", "max_raises", "num_board_cards", "stack"}
_KEY_LINE = re.compile(r"^([A-Za-z]+)\s*=?\s*(.*)$")


def parse_gamedef(text: str, source: str = "game definition") -> GameDef:
    """A game definition read from its text; ``AcpcError`` names the line that is wrong."""
    lines = text.splitlines()
    values: dict[str, Any] = {}
    betting, began, ended = "", False, False
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{source}, line {number}"
        low = line.lower()
        if low == "gamedef":
            began = True
            continue
        if low == "end gamedef":
            ended = True
            break
        if not began:
            raise AcpcError(f"{where}: {line!r} before GAMEDEF; a definition opens with GAMEDEF")
        if low in ("limit", "nolimit"):
            betting = low
            continue
        match = _KEY_LINE.match(line)
        key = match.group(1).lower() if match else ""
        if key not in _KEYS:
            allowed = ", ".join(["limit", "nolimit", *_KEYS])
            raise AcpcError(f"{where}: {line!r} is no game-definition item; allowed: {allowed}")
        assert match is not None
        try:
            numbers = tuple(int(v) for v in match.group(2).split())
        except ValueError:
            raise AcpcError(f"{where}: {line!r}: expected whole numbers after {key}") from None
        field = _KEYS[key]
        if not numbers or (field not in _LISTS and len(numbers) != 1):
            many = "one or more numbers" if field in _LISTS else "one number"
            raise AcpcError(f"{where}: {line!r}: expected {many} after {key}")
        values[field] = numbers if field in _LISTS else numbers[0]
    if not began or not ended:
        raise AcpcError(f"{source}: expected a GAMEDEF ... END GAMEDEF block")
    missing = [k for k, f in _KEYS.items() if f not in values and f != "stack"]
    if not betting:
        missing.insert(0, "limit|nolimit")
    if missing:
        raise AcpcError(f"{source}: missing {', '.join(missing)}")
    gamedef = GameDef(betting=betting, **values)
    _check_shape(gamedef, source)
    return gamedef


def _check_shape(g: GameDef, source: str) -> None:
    """The reference's own sanity checks (``readGame``): enough items for the players and
    rounds (stacks: ``DEALER_STACKS`` when the file lists none), no blind over its stack,
    first players in range, a deck large enough."""
    if not 2 <= g.num_players <= 22 or not 1 <= g.num_rounds <= 4:
        raise AcpcError(f"{source}: numPlayers 2..22 and numRounds 1..4, got {g.num_players} "
                        f"and {g.num_rounds}")  # fmt: skip
    stacks = g.stack or (UNLIMITED_STACK,) * DEALER_STACKS
    if len(stacks) < g.num_players:
        unlisted = "" if g.stack else f"; with no stack line the reference dealer has {len(stacks)}"
        raise AcpcError(f"{source}: only read {len(stacks)} stack sizes, need {g.num_players}: "
                        f"a stack line lists one per player{unlisted}")  # fmt: skip
    pairs = zip(g.blind[: g.num_players], stacks, strict=False)  # (too few blinds: below)
    over = [p + 1 for p, (b, s) in enumerate(pairs) if b > s]
    if over:
        raise AcpcError(f"{source}: the blind of player {over[0]} is greater than its stack")
    need = {"blind": g.num_players, "raise_size": g.num_rounds, "first_player": g.num_rounds,
            "max_raises": g.num_rounds, "num_board_cards": g.num_rounds}  # fmt: skip
    for name, count in need.items():
        if len(getattr(g, name)) < count:
            raise AcpcError(f"{source}: {name} has {len(getattr(g, name))} items, needs {count}")
    if any(not 1 <= p <= g.num_players for p in g.first_player[: g.num_rounds]):
        raise AcpcError(f"{source}: firstPlayer must be in 1..{g.num_players}")
    cards = g.num_hole_cards * g.num_players + sum(g.num_board_cards[: g.num_rounds])
    if cards > g.num_suits * g.num_ranks:
        raise AcpcError(f"{source}: {cards} cards dealt from a deck of "
                        f"{g.num_suits * g.num_ranks}")  # fmt: skip


def sparring_gamedef(seats: int) -> GameDef:
    """Sparring's fixed-limit hold'em at ``seats`` seats, from the engine's own rules."""
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise AcpcError(f"a table has {MIN_SEATS}..{MAX_SEATS} seats, got {seats}")
    sb, bb = blind_seats(seats)
    blind = [0] * seats
    blind[sb], blind[bb] = 1, 2
    return GameDef(
        betting="limit",
        num_players=seats,
        num_rounds=4,
        blind=tuple(blind),
        raise_size=tuple(int(bet_size(s)) for s in range(4)),
        first_player=tuple(int(first_to_act(seats, s)) + 1 for s in range(4)),
        # the big blind is the first of a street's MAX_BETS bets preflop; the reference counts
        # raises only, so preflop allows one fewer
        max_raises=(MAX_BETS - 1, MAX_BETS, MAX_BETS, MAX_BETS),
        num_suits=4,
        num_ranks=13,
        num_hole_cards=2,
        num_board_cards=BOARD_CARDS,
        # unlimited stacks, written out where the reference dealer would not preset them
        stack=(UNLIMITED_STACK,) * seats if seats > DEALER_STACKS else (),
    )


def render_gamedef(g: GameDef) -> str:
    """The text of ``g`` in the reference's layout (what ``data/acpc/`` holds)."""
    rows = ["GAMEDEF", g.betting]
    names = {f: k for k, f in _KEYS.items()}
    spelled = {"numplayers": "numPlayers", "numrounds": "numRounds", "raisesize": "raiseSize",
               "firstplayer": "firstPlayer", "maxraises": "maxRaises", "numsuits": "numSuits",
               "numranks": "numRanks", "numholecards": "numHoleCards",
               "numboardcards": "numBoardCards"}  # fmt: skip
    order = [f.name for f in fields(GameDef) if f.name not in ("betting", "stack")]
    order[2:2] = ["stack"] if g.stack else []  # after numRounds, as the reference prints it
    for name in order:
        value = getattr(g, name)
        text = " ".join(map(str, value)) if isinstance(value, tuple) else str(value)
        key = names[name]
        rows.append(f"{spelled.get(key, key)} = {text}")
    rows.append("END GAMEDEF")
    return "\n".join(rows) + "\n"


def differences(g: GameDef) -> list[str]:
    """How ``g`` departs from Sparring's game at its number of players (empty: it is it)."""
    if not MIN_SEATS <= g.num_players <= MAX_SEATS:
        return [f"numPlayers = {g.num_players}: Sparring plays {MIN_SEATS}..{MAX_SEATS} seats"]
    ours = sparring_gamedef(g.num_players)
    out = []
    for f in fields(GameDef):
        if f.name == "stack":
            if g.stack and any(s < 10**6 for s in g.stack[: g.num_players]):
                stacks = " ".join(map(str, g.stack))
                out.append(f"stack = {stacks}: Sparring's stacks are unlimited")
            continue
        theirs, want = getattr(g, f.name), getattr(ours, f.name)
        if isinstance(want, tuple):
            theirs = theirs[: len(want)]
        if theirs != want:
            shown = " ".join(map(str, want)) if isinstance(want, tuple) else want
            out.append(f"{f.name} is {_shown(theirs)}, Sparring's is {shown}")
    return out


def _shown(value: Any) -> str:
    return " ".join(map(str, value)) if isinstance(value, tuple) else str(value)


def gamedef_path(seats: int) -> Path:
    """The shipped definition of Sparring's game at ``seats`` seats."""
    return GAMEDEF_DIR / f"sparring.limit.{seats}p.game"


def load_gamedef(path: str | Path) -> GameDef:
    """A definition file read and checked to be Sparring's game; ``AcpcError`` otherwise."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise AcpcError(f"{path}: cannot be read ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise AcpcError(f"{path}: not a text file") from None
    gamedef = parse_gamedef(text, str(path))
    wrong = differences(gamedef)
    if wrong:
        raise AcpcError(f"{path} is not Sparring's game: {'; '.join(wrong)}")
    return gamedef


# ---------------------------------------------------------------------------- match states
def betting(history: Sequence[Sequence[Sequence[Any]]]) -> str:
    """The betting string of a hand's ``history`` (per street: ``[seat, word]``)."""
    return "/".join(["".join([LETTER[word] for _, word in street]) for street in history])


def _board_text(board: Sequence[str], street: int) -> str:
    """``/flop/turn/river`` up to ``street`` (nothing preflop)."""
    cut = (0, 3, 4, 5)
    return "".join("/" + "".join(board[cut[s - 1] : cut[s]]) for s in range(1, street + 1))


_STREETS = ("preflop", "flop", "turn", "river")


def match_state(observation: dict[str, Any], hand_number: int) -> str:
    """The ``MATCHSTATE`` line (no line end) for the seat whose ``observation`` this is."""
    seat, n = observation["seat"], observation["seats"]
    shown = {s: cards for s, cards in observation["showdown"]}
    holes = "|".join(
        "".join(observation["hole"]) if p == seat else "".join(shown.get(p, ())) for p in range(n)
    )
    street = _STREETS.index(observation["street"])
    return (
        f"MATCHSTATE:{seat}:{hand_number}:{betting(observation['history'])}:"
        f"{holes}{_board_text(observation['board'], street)}"
    )


def match_states(observation: dict[str, Any], hand_number: int, first: int = 0) -> list[str]:
    """The ``MATCHSTATE`` lines of the hand so far after ``first``, ``first + 1``, ... actions,
    up to ``observation``'s own (all of its actions), worked out from ``observation`` alone: a
    state's betting is a prefix of the history, its board the cards of that prefix's street,
    and only the last state can show a showdown. Equal to ``match_state`` of the observation
    the seat had after each of those actions (a test checks it), at the cost of one line each,
    not one observation each."""
    seat, n, history = observation["seat"], observation["seats"], observation["history"]
    own = "".join(observation["hole"])
    hidden = "|".join(own if p == seat else "" for p in range(n))
    prefix = f"MATCHSTATE:{seat}:{hand_number}:"
    total = sum(len(street) for street in history)
    lines: list[str] = []
    done, letters = 0, list[str]()  # actions of the streets before the current one; letters
    for k, street in enumerate(history):
        streets = "/".join(letters)
        board = _board_text(observation["board"], k)
        cut = f"{streets}/" if k else ""
        for j in range(len(street) + (k == len(history) - 1)):
            t = done + j
            if first <= t < total:  # the state after t actions: action t + 1 is in street k
                moves = "".join([LETTER[word] for _, word in street[:j]])
                lines.append(f"{prefix}{cut}{moves}:{hidden}{board}")
        letters.append("".join([LETTER[word] for _, word in street]))
        done += len(street)
    if first <= total:
        lines.append(match_state(observation, hand_number))
    return lines


def format_value(value: float) -> str:
    """A value as the dealer writes it: ``%.6f`` with trailing zeros (and point) dropped."""
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def log_state(hand: HoldemHand, hand_number: int, names: Sequence[str]) -> str:
    """The dealer's log line of a finished ``hand``: ``STATE:<hand>:<betting>:<all cards>``,
    then every seat's value and every seat's name, ``|``-separated, in seat order."""
    if not hand.is_terminal():
        raise ValueError("only a finished hand is logged")
    holes = "|".join("".join(CARD_TEXTS[c] for c in hole) for hole in hand.holes)
    board = _board_text([CARD_TEXTS[c] for c in hand.board], hand.street)
    values = "|".join(format_value(v) for v in hand.returns())
    return f"STATE:{hand_number}:{betting(hand.history)}:{holes}{board}:{values}:{'|'.join(names)}"


def hand_history(
    seats: int, seed: int, actions: Sequence[str], number: int, names: Sequence[str]
) -> str | None:
    """The log line of the hand ``Holdem(seats).new_state(seed)`` played with ``actions``
    (None when they do not finish it: a forfeited or stopped hand). ``names`` are made fit
    for the format: no ``:``, ``|`` or blanks."""
    from sparring.poker.game import Holdem

    hand = Holdem(seats).new_state(seed)
    for action in actions:
        hand.apply_action(action)
    if not hand.is_terminal():
        return None
    return log_state(hand, number, [re.sub(r"[:|\s]", "_", n) for n in names])


def hands_log(
    game: Any, rows: Iterable[dict[str, Any]], name: Callable[[str], str]
) -> tuple[str, str]:
    """A contest's games at ``game``'s table (``rows`` of ``games.jsonl``: seed, actions, the
    agent in each seat, named by ``name``) as the ACPC reference dealer logs them:
    ``hands.log``, one ``STATE:`` line a finished hand, numbered in the order of ``rows``
    (poker's ``history_writer``)."""
    lines = []
    for number, row in enumerate(rows):
        names = [name(spec) for spec in row["seats"]]
        line = hand_history(game.num_players, row["seed"], row["actions"], number, names)
        if line is not None:
            lines.append(line + "\n")
    return "hands.log", "".join(lines)


@dataclass(frozen=True)
class MatchState:
    """A received ``MATCHSTATE`` line: ``rounds`` are the betting letters per round, ``holes``
    the cards shown per seat (empty where hidden), ``board`` the board so far."""

    text: str
    position: int
    hand_number: int
    rounds: tuple[str, ...]
    holes: tuple[tuple[str, ...], ...]
    board: tuple[str, ...]


_CARD = r"[2-9TJQKA][cdhs]"
_MATCH = re.compile(r"^MATCHSTATE:(\d+):(\d+):([fckrbFCKRB/]*):([^:]*)$")


def parse_match_state(line: str, seats: int) -> MatchState:
    """A ``MATCHSTATE`` line (line end removed) of a ``seats``-seat game; ``AcpcError``
    says what is wrong."""
    match = _MATCH.match(line)
    if not match:
        raise AcpcError(f"not a limit match state: {line[:80]!r}")
    position, hand_number = int(match.group(1)), int(match.group(2))
    if position >= seats:
        raise AcpcError(f"position {position} at a {seats}-seat table: {line[:80]!r}")
    rounds = tuple(match.group(3).split("/"))
    cards = match.group(4).split("/")
    holes = cards[0].split("|")
    if len(rounds) > 4 or len(cards) != len(rounds) or len(holes) != seats:
        raise AcpcError(f"{len(rounds)} rounds, {len(cards)} card groups and {len(holes)} "
                        f"seats' cards do not fit a {seats}-seat table: {line[:80]!r}")  # fmt: skip
    hole_cards = tuple(tuple(re.findall(_CARD, h)) for h in holes)
    if any(len(h) not in (0, 2) or "".join(h) != s for h, s in zip(hole_cards, holes, strict=True)):
        raise AcpcError(f"hole cards must be two cards or none: {line[:80]!r}")
    board = tuple(c for group in cards[1:] for c in re.findall(_CARD, group))
    if [len(re.findall(_CARD, g)) * 2 for g in cards[1:]] != [len(g) for g in cards[1:]] or len(
        board
    ) != sum(BOARD_CARDS[: len(rounds)]):
        raise AcpcError(f"the board does not fit round {len(rounds)}: {line[:80]!r}")
    if not hole_cards[position]:
        raise AcpcError(f"no hole cards for the receiving position {position}: {line[:80]!r}")
    return MatchState(line, position, hand_number, rounds, hole_cards, board)


def replay(state: MatchState) -> HoldemHand:
    """The hand ``state`` describes, in the engine: the cards it shows, unused cards where
    it shows none (never seen by the position: hidden cards stay hidden until a showdown shows
    them), and its actions applied in turn. ``AcpcError`` if the betting is not a legal hand
    or disagrees with the rounds it claims."""
    index = {t: i for i, t in enumerate(CARD_TEXTS)}
    known = [c for h in state.holes for c in h] + list(state.board)
    if len(set(known)) != len(known):
        raise AcpcError(f"a card is dealt twice: {state.text[:80]!r}")
    spare = iter(c for c in range(52) if CARD_TEXTS[c] not in set(known))
    holes = [(index[h[0]], index[h[1]]) if h else (next(spare), next(spare)) for h in state.holes]
    board = [index[c] for c in state.board] + [next(spare) for _ in range(5 - len(state.board))]
    hand = HoldemHand(holes, board)
    for street, letters in enumerate(state.rounds):
        if hand.is_terminal() or hand.street != street:
            raise AcpcError(f"betting round {street + 1} does not follow: {state.text[:80]!r}")
        for letter in letters:
            word = WORD[letter]
            if hand.is_terminal() or word not in hand.legal_actions():
                raise AcpcError(f"{letter!r} is not a legal action there: {state.text[:80]!r}")
            hand.apply_action(word)
    if not hand.is_terminal() and hand.street != len(state.rounds) - 1:
        raise AcpcError(f"a betting round is left open: {state.text[:80]!r}")
    return hand


def legal_letters(hand: HoldemHand) -> list[str]:
    """The protocol letters of the actions the engine allows now."""
    return [LETTER[w] for w in hand.legal_actions()]
