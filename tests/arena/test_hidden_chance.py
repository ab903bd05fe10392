"""Nothing an entrant receives determines chance the game hides from it (runtime.storage.keys).

The attacker replays the library's own dealing (``new_state``) from everything it is told: the
start message's seed and the contest's seed. Over many hands it must name the opponent's hole
cards no better than chance; the positive control gives it the game's real chance seed, from
which the same code names them every time.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sparring import game_api
from sparring.arena.contest import Block, contest_secret, play_block, unit_seed
from sparring.arena.play import play_game
from sparring.pipelines.arena import _block_file, _load, _save
from sparring.runtime.programs.program import Limits
from sparring.runtime.storage import keys
from sparring.runtime.storage.location import locate
from sparring.seeding import task_seed

HANDS = 300


class Replayer:
    """Plays the first legal action; at the start, deals the hand again from the start
    message's seed (or, the control, from ``chance``) and writes down the opponent's hole
    cards it predicts."""

    def __init__(self, chance: int | None = None) -> None:
        self.chance, self.predicted = chance, []

    def start(self, info: dict) -> None:
        seed = info["seed"] if self.chance is None else self.chance
        replay = game_api.get("poker").new_state(seed)
        self.predicted.append(replay.observation(1 - info["seat"])["hole"])

    def act(self, observation: dict, legal: list) -> object:
        return legal[0]


class Dealt:
    def act(self, observation: dict, legal: list) -> object:
        return legal[0]


def _hits(told: str, secret: bytes) -> int:
    poker = game_api.get("poker")
    hits = 0
    for unit in range(HANDS):
        chance = unit_seed(secret, unit)
        attacker = Replayer(chance if told == "chance" else None)  # the control: the old seed
        play_game(poker, [attacker, Dealt()], chance, secret=secret)
        truth = poker.new_state(chance).observation(1)["hole"]
        hits += attacker.predicted[-1] == truth
    return hits


def test_the_start_seed_tells_nothing_of_the_opponents_cards():
    secret = contest_secret(b"k" * 32, seed=0)
    # chance: two exact hole cards in 1,225 pairs; 300 hands expect 0.24 hits
    assert _hits("start", secret) <= 3


def test_positive_control_the_chance_seed_tells_them_all():
    assert _hits("chance", contest_secret(b"k" * 32, seed=0)) == HANDS


def test_the_contest_seed_alone_does_not_give_the_units_chance():
    """The seed a user types (0 by default) is public: the units' chance needs the store's key
    too, and two stores deal differently from the same seed (a copied key deals the same)."""
    public = [task_seed(0, "arena-unit", u) % (1 << 31) for u in range(50)]  # the old rule
    mine = [unit_seed(contest_secret(b"a" * 32, 0), u) for u in range(50)]
    theirs = [unit_seed(contest_secret(b"b" * 32, 0), u) for u in range(50)]
    again = [unit_seed(contest_secret(b"a" * 32, 0), u) for u in range(50)]
    assert not set(mine) & set(public) and mine != theirs and mine == again


def test_a_block_without_the_stores_key_is_played_again(tmp_path):
    """An entrant that rewrote its finished block (the old seal was an unkeyed SHA-256 inside
    the file) is refused on resume; the block the arena sealed is read back (the control)."""
    store = locate(str(tmp_path))
    key = keys.store_key(store)
    block = Block("flagbots", "cmd:bot", "first", 0, 2)
    honest = {"block": block.__dict__, "units": [{"score": 0.0}, {"score": 0.0}]}
    _save(store, honest, key)
    assert _load(store, block, key) == honest
    forged = {"block": block.__dict__, "units": [{"score": 1.0}, {"score": 1.0}]}
    body = json.dumps(forged, sort_keys=True).encode()
    for mark in (keys.seal(b"x" * 32, body), __import__("hashlib").sha256(body).hexdigest()):
        _block_file(store, block).write_text(json.dumps({"hmac": mark, "result": forged}))
        assert _load(store, block, key) is None


def test_the_store_key_is_made_once_readable_by_the_user_only(tmp_path):
    first = keys.store_key(locate(str(tmp_path)))
    assert keys.store_key(locate(str(tmp_path))) == first and len(first) == 32
    assert (Path(tmp_path) / ".key").stat().st_mode & 0o777 == 0o600
    (Path(tmp_path) / ".key").write_bytes(b"short")
    with pytest.raises(ValueError, match="a key of 5 bytes, expected 32"):
        keys.store_key(locate(str(tmp_path)))


def test_a_block_played_twice_under_one_secret_is_the_same():
    secret = contest_secret(b"k" * 32, seed=3)
    block = Block("poker", "random", "poker@calling_station", 0, 3)
    limits = Limits()
    run = [
        play_block(block, secret=secret, limits=limits, opening_plies=0, withdraw_after=3)
        for _ in range(2)
    ]
    strip = [[{k: g[k] for k in ("returns", "actions")} for u in r["units"] for g in u["games"]]
             for r in run]  # fmt: skip
    assert strip[0] == strip[1]
