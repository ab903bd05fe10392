"""The wire protocols page's transcripts (docs/reference/protocols.md) are real: each game is
replayed with the seed its start line names, seat 0 answering what the transcript says, and
every line the arena writes must match."""

from __future__ import annotations

import json
import re

import pytest

from sparring import game_api
from sparring.arena.agents import RandomAgent
from sparring.arena.play import play_game, seat_seed
from sparring.arena.protocol import PROTOCOL_VERSION, Transcript
from tests.helpers.docs import page

DOC = "reference/protocols.md"
FLAGBOTS = "rules/flagbots.md"  # FlagBots' rules and action encoding


def transcripts() -> dict[str, list[str]]:
    text = page(DOC)
    found = re.findall(r"^### (\w+)\n.*?```jsonl\n(.*?)```", text, flags=re.S | re.M)
    return {name: body.strip().splitlines() for name, body in found}


class Scripted:
    """Seat 0: answers what the transcript's ``<`` lines say, in order."""

    def __init__(self, answers: list[dict]) -> None:
        self.answers = iter(answers)

    def act(self, observation, legal):
        return next(self.answers)["action"]


# each transcript's game: its chance seed, and the secret its start seeds are keyed by
CHANCE = {"flagbots": 0, "poker": 3, "mus": 5, "eleusis": 0}
# (the bytes the transcripts were made with, from the page's first name: a constant)
SECRET = b"the transcripts of docs/PROTOCOLS.md"[:32].ljust(32, b".")


def test_every_game_has_a_transcript():
    assert set(transcripts()) == set(game_api.registered())


@pytest.mark.parametrize("name", ["flagbots", "poker", "mus", "eleusis"])
def test_the_transcript_is_the_game_the_arena_plays(name):
    shown = transcripts()[name]
    start = json.loads(shown[0][2:])
    assert start["type"] == "start" and start["protocol"] == PROTOCOL_VERSION
    game = game_api.get(name)
    # what seat 0 answered: the shown lines (a cut transcript: random, as it was made)
    answers = [json.loads(line[2:]) for line in shown if line.startswith('< {"action"')]
    cut = "…" in shown
    agent = RandomAgent() if cut else Scripted(answers)
    seat0 = Transcript(agent)
    others = [RandomAgent() for _ in range(game.num_players - 1)]
    record = play_game(game, [seat0, *others], seed=CHANCE[name], secret=SECRET)
    assert start["seed"] == seat_seed(SECRET, name, CHANCE[name], 0)  # not the chance seed
    assert record.forfeit_seat is None
    if cut:
        head = shown[: shown.index("…")]
        assert seat0.lines[: len(head)] == head and seat0.lines[-1] == shown[-1]
    else:
        assert seat0.lines == shown
    assert json.loads(seat0.lines[-1][2:]) == {"type": "end", "returns": record.returns}


def test_the_sandbox_paragraph_says_a_detached_child_is_ended_with_its_program():
    """What the keeper does (``runtime.programs.keeper``; proved by tests/arena/test_sandbox.py::
    test_a_child_in_a_session_of_its_own_is_ended_with_the_bot), the document says: a child
    started with ``setsid`` leaves the group, not the tree, and is ended with its program."""
    text = " ".join(page(DOC).split())
    [sentence] = [s for s in re.split(r"(?<=\.) (?=[A-Z])", text) if "(`setsid`)" in s]
    assert "not ended" not in sentence and "is ended with it" in sentence, sentence


def test_the_flagbots_action_encoding_the_document_gives_is_the_engines():
    """The worked example of the FlagBots rules page: c2 is cell 11, its steps and
    self-destruct."""
    text = " ".join(page(FLAGBOTS).split())
    start = game_api.get("flagbots").new_state(0)
    for action, move in ((105, "c2-c3"), (106, "c2-d3"), (107, "x c2")):
        assert start.move_text(action) == move and action in start.legal_actions()
    assert "to c3 (straight up, towards North) is `11 * 9 + 6 = 105`" in text
    assert "its self-destruct `11 * 9 + 8 = 107`" in text
