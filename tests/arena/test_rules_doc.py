"""The rules pages of the site (docs/rules/: poker, Mus, FlagBots, Probabilistic Eleusis) state
the rules the engines play: their tables and worked examples are read from the pages and
checked against the games as ``sparring.game_api`` runs them (no Ray: each game is played in
process, a few hands at most)."""

from __future__ import annotations

import itertools
import random
import re

import pytest

from sparring import game_api
from sparring.eleusis.feedback import harma_change
from sparring.eleusis.game import Eleusis
from sparring.mus import cards as mus_cards
from sparring.mus.keys import JUEGO_ORDER, chica_key, grande_key, juego_key, pares_key, winner
from sparring.poker import rules as poker_rules
from sparring.poker.bots import baseline
from sparring.poker.catalog import N_GENES
from sparring.poker.game import BOARD_SHOWN, Holdem
from tests.helpers import docs
from tests.helpers.docs import page

PAGES = ("rules/poker.md", "rules/mus.md", "rules/flagbots.md", "rules/eleusis.md")
POKER, MUS, FLAGBOTS, ELEUSIS = PAGES


def section(name: str, heading: str) -> str:
    """The text of page ``name`` under ``heading`` (a whole line), up to the next heading of the
    same or a higher level."""
    return docs.section(page(name), heading)


def table(body: str) -> list[list[str]]:
    """The rows (header and separator left out) of the first table of ``body``, as cells with
    their code quotes removed."""
    rows = []
    for line in body.splitlines():
        if line.startswith("|"):
            rows.append([c.strip().replace("`", "") for c in line.strip().strip("|").split("|")])
        elif rows:
            break
    assert len(rows) > 2, f"no table in {body[:80]!r}"
    return rows[2:]


def flat(body: str) -> str:
    return " ".join(body.split())


# ---------------------------------------------------------------------------------- poker
def test_the_poker_streets_bet_sizes_and_cap_are_the_engines():
    rows = table(section(POKER, "## The deal"))
    assert [r[0] for r in rows] == list(poker_rules.STREET_NAMES)
    for street, (_, shown, size, most) in enumerate(rows):
        assert int(shown) == BOARD_SHOWN[street]
        assert int(size) == poker_rules.bet_size(street)
        assert int(most) == poker_rules.MAX_BETS


def _seat(cell: str) -> int:
    return int(re.match(r"seat (\d+)", cell).group(1))


def test_the_poker_blinds_and_first_to_act_are_the_engines():
    rows = table(section(POKER, "## Seats, blinds, who acts first"))
    tables = {"heads-up (n = 2)": [2], "n = 3 .. 10": range(3, 11)}
    assert [r[0] for r in rows] == list(tables)
    for (name, sb, bb, preflop, after), sizes in zip(rows, tables.values(), strict=True):
        for n in sizes:
            hand = Holdem(n).new_state(n)
            obs = hand.observation(hand.current_player())
            blinds = [0] * n
            blinds[_seat(sb)], blinds[_seat(bb)] = 1, 2
            assert obs["contributions"] == blinds and obs["button"] == n - 1, name
            assert hand.current_player() == _seat(preflop), name
            while hand.observation(0)["street"] == "preflop":
                hand.apply_action("call")
            assert hand.current_player() == _seat(after), name


def test_the_poker_worked_example_is_the_hand_the_engine_deals_and_plays():
    body = section(POKER, "## Worked example")
    words = flat(body)
    cards = re.search(r"seat 0 holds (.+?), seat 1 (.+?), and the board will be (.+?)\.", words)
    hole0, hole1, board = (g.replace("`", "").split() for g in cards.groups())
    hand = game_api.get("poker").new_state(7)
    assert hand.observation(0)["hole"] == hole0 and hand.observation(1)["hole"] == hole1
    assert hand.board_texts == tuple(board)
    for seat, street, to_call, bets, pot, legal, plays in table(body):
        obs = hand.observation(int(seat))
        assert hand.current_player() == int(seat)
        assert (obs["street"], obs["to_call"], obs["bets"], obs["pot"]) == (
            street,
            int(to_call),
            int(bets),
            int(pot),
        )
        assert hand.legal_actions() == legal.split()
        hand.apply_action(plays)
    stated = re.search(r"the hand ends with `returns` = `(\[.*?\])`", words).group(1)
    assert hand.is_terminal() and str(hand.returns()) == stated == "[-12.0, 12.0]"


def test_the_ten_seat_opening_the_document_gives_is_the_engines():
    words = flat(section(POKER, "## Worked example"))
    assert (
        "the first `act` goes to seat 2 with `to_call` 2, `bets` 1, `pot` 3 and `legal` = "
        '`["fold", "call", "raise"]`'
    ) in words
    hand = Holdem(10).new_state(0)
    obs = hand.observation(2)
    assert hand.current_player() == 2
    assert (obs["to_call"], obs["bets"], obs["pot"]) == (2, 1, 3)
    assert obs["contributions"][:2] == [1, 2] and hand.legal_actions() == ["fold", "call", "raise"]


def test_the_chromosomes_buckets_and_gene_index_are_the_engines():
    body = section(POKER, "### After the flop: the genes")
    counts = [int(re.search(r"\((\d+)\)$", buckets).group(1)) for _, buckets in table(body)]
    assert counts == [3, 5, 3, 4, 3] and N_GENES == 3 * 5 * 3 * 4 * 3
    formula = re.search(r"the gene's index is `([^`]+)`", flat(body)).group(1)
    names = ("street", "opponents", "still_to_act", "bets_to_call", "pot")
    assert all(name in formula for name in names)
    index = eval("lambda " + ", ".join(names) + ": " + formula.replace("×", "*"))
    seen = set()
    buckets = itertools.product(range(3), range(5), range(3), range(4), range(3))
    for street, opp, act, call, pot in buckets:  # and situations at each end of the pot's
        for chips in ((3, 11), (12, 23), (24, 200))[pot]:  # < 3 big bets of 4 chips, 3-6, >= 6
            engine = poker_rules.gene_index(street + 1, opp + 1, act, call, chips)
            assert index(street, opp, act, call, pot) == engine
            seen.add(engine)
    assert seen == set(range(N_GENES))


def test_the_worked_gene_is_the_engines_and_the_tight_aggressive_players():
    words = flat(section(POKER, "### After the flop: the genes"))
    example = re.search(
        r"on the (\w+), against (\d+) opponents, with (\d+) player still to act after this "
        r"one, (\d+) bet \((\d+) chips\) to call and a pot of (\d+) chips \(\d+ big bets\), "
        r"the gene is number \*\*(\d+)\*\*",
        words,
    )
    street, opponents, to_act, bets, chips, pot, gene = example.groups()
    street = poker_rules.STREET_NAMES.index(street)
    assert int(bets) * poker_rules.bet_size(street) == int(chips)
    engine = poker_rules.gene_index(street, int(opponents), int(to_act), int(bets), int(pot))
    assert engine == int(gene)
    lo, hi = (int(t) for t in re.search(r"holds `\((-?\d+), (-?\d+)\)` there", words).groups())
    assert tuple(baseline("tight_aggressive")[engine]) == (lo, hi)
    decisions = re.findall(r"(0\.\d+) \(`v` = (−?\d+)\) it (raises|calls|folds)", words)
    assert len(decisions) == 3
    for equity, v, word in decisions:
        v = int(v.replace("−", "-"))
        assert poker_rules.decision_value(float(equity)) == v
        action = poker_rules.ACTION_NAMES[poker_rules.gene_action(v, lo, hi)]
        assert action == {"raises": "raise", "calls": "call", "folds": "fold"}[word]


def test_the_baselines_thresholds_are_the_engines():
    rows = {r[0]: r[1] for r in table(section(POKER, "### The baselines"))}
    assert list(rows) == ["calling_station", "maniac", "random", "tight_aggressive", "mixed"]
    assert rows["calling_station"] == "lo = −100, hi = 100"
    assert (baseline("calling_station") == [-100, 100]).all()
    assert rows["maniac"] == "lo = hi = −100" and (baseline("maniac") == -100).all()


# ---------------------------------------------------------------------------------- Mus
def test_the_mus_card_encoding_table_is_the_engines():
    rows = table(section(MUS, "## Cards: the integers of `hand`"))
    assert len(rows) >= 8
    for card, suit, face, plays_as, points in rows:
        c = int(card)
        number = mus_cards.face(c)
        assert suit == mus_cards.SUITS[c // 10]
        assert int(face.split()[0]) == number
        assert int(plays_as.split()[0]) == mus_cards.effective_rank(number)
        assert int(points) == mus_cards.point_value(number)


def _hand(faces: str) -> tuple[int, ...]:
    return mus_cards.parse_faces(faces)


def test_the_lance_examples_rank_as_the_engine_ranks_them():
    lances = section(MUS, "## The lances and who takes part")
    bullets = {b.split("**")[1]: flat(b) for b in lances.split("\n- ")[1:]}
    hand = r"([RCSA4-7](?: [RCSA4-7]){3})"
    for lance, key in (("Grande", grande_key), ("Chica", chica_key)):
        pairs = re.findall(rf"{hand} beats {hand}", bullets[lance])
        assert len(pairs) == 2, lance
        for better, worse in pairs:
            assert key(_hand(better)) > key(_hand(worse)), (lance, better, worse)
    chain = re.search(
        rf"four reyes beat {hand}, which beat {hand}, which beat {hand}", bullets["Pares"]
    )
    keys = [pares_key(_hand(h)) for h in ("R R R R", *chain.groups())]
    assert keys == sorted(keys, reverse=True) and len(set(keys)) == 4
    equal = re.search(rf"\({hand} and {hand} are equal\)", bullets["Pares"])
    assert pares_key(_hand(equal.group(1))) == pares_key(_hand(equal.group(2)))
    order = re.search(r"\*\*(31(?: > \d+)+)\*\*", bullets["Juego"]).group(1)
    assert [int(t) for t in order.split(" > ")] == sorted(JUEGO_ORDER, key=JUEGO_ORDER.get)[::-1]


def test_the_two_mus_hands_compare_as_the_engine_compares_them():
    body = section(MUS, "## Worked examples")
    words = flat(body)
    hands = {
        name: [
            int(c) for c in re.search(rf"hand {name} = `\[([\d, ]+)\]`", words, re.I)[1].split(",")
        ]
        for name in "AB"
    }
    assert hands == {"A": [9, 19, 8, 0], "B": [2, 12, 1, 4]}
    faces = {k: [mus_cards.face(c) for c in v] for k, v in hands.items()}
    ranks = {k: mus_cards.hand_ranks(v) for k, v in faces.items()}
    points = {k: mus_cards.hand_points(v) for k, v in faces.items()}
    assert points == {"A": 31, "B": 26}
    keys = {
        "grande": {k: grande_key(r) for k, r in ranks.items()},
        "chica": {k: chica_key(r) for k, r in ranks.items()},
        "pares": {k: pares_key(r) for k, r in ranks.items()},
        "juego": {k: juego_key(p) for k, p in points.items()},
    }
    rows = table(body)
    assert [r[0] for r in rows] == list(keys)
    for lance, shown_a, shown_b, a_mano, b_mano in rows:
        both = [keys[lance]["A"], keys[lance]["B"]]
        assert "AB"[winner(both, 0)] == a_mano, lance  # A in seat 0, mano 0: A nearer the mano
        assert "AB"[winner(both, 1)] == b_mano, lance
        if lance == "grande":
            assert (shown_a, shown_b) == tuple(
                mus_cards.format_faces(sorted(r, reverse=True)) for r in ranks.values()
            )
        if lance == "chica":
            assert (shown_a, shown_b) == tuple(
                mus_cards.format_faces(sorted(r)) for r in ranks.values()
            )
        if lance == "pares":
            assert shown_a == shown_b == "pareja of reyes"
            assert keys["pares"]["A"] == keys["pares"]["B"] == (1, 12, 0)
        if lance == "juego":
            assert shown_a == str(points["A"]) and keys["juego"]["A"] is not None
            assert shown_b == f"{points['B']}: no juego" and keys["juego"]["B"] is None


def test_the_mus_betting_sequence_is_what_the_engine_plays():
    body = section(MUS, "## Worked examples")
    body = body[body.index("A grande betting sequence") :]
    rows = table(body)
    match = game_api.get("mus").new_state(0)
    assert match.observation(0)["mano"] == 0
    for seat, kinds, says, _ in rows:
        assert match.current_player() == int(seat)
        assert match.observation(int(seat))["legal"] == kinds.split()
        assert says in match.legal_actions()
        match.apply_action(says)
    words = flat(body)
    assert '`["score", null, ["grande", 0, 4]]`, `scores` is `[4, 0]`' in words
    obs = match.observation(match.current_player())
    assert obs["history"][-1] == ["score", None, ["grande", 0, 4]] and obs["scores"] == [4, 0]
    assert obs["lance"] == "chica" and match.current_player() == 0
    # had seat 3 accepted the raise: querido, a stake of 6
    assert "Had seat 3 said `quiero`, grande would have closed querido with a stake of 6" in words
    other = game_api.get("mus").new_state(0)
    for _, _, says, _ in rows[:4]:
        other.apply_action(says)
    other.apply_action("quiero")
    grande = other.state.lances["grande"]
    assert (grande.status, grande.pending) == ("querido", 6)


def test_the_mus_observation_and_history_tables_name_what_the_engine_shows():
    body = section(MUS, "## Observation")
    fields = [r[0] for r in table(body)]
    match = game_api.get("mus").new_state(3)
    assert fields == list(match.observation(match.current_player()))
    documented = {
        k.strip()
        for row in table(body[body.index("Each `history` event") :])
        for k in row[0].split(",")
    }
    rng = random.Random(3)
    seen = set()
    for seed in range(3):
        match = game_api.get("mus").new_state(seed)
        while not match.is_terminal():
            legal = match.legal_actions()
            # small stakes and many mus rounds: every kind of event shows up, reshuffles too
            small = [a for a in legal if not re.search(r"\((\d+)\)", a) or a.endswith("(2)")]
            match.apply_action(
                "mus" if "mus" in legal and rng.random() < 0.9 else rng.choice(small)
            )
        seen |= {e[0] for seat in range(4) for e in match.observation(seat)["history"]}
    assert seen <= documented, seen - documented
    assert {"reshuffle", "reveal", "juego", "vaca", "score", "declare_pares"} <= seen


# ---------------------------------------------------------------------------------- FlagBots
def test_the_flagbots_start_drawn_and_written_is_the_engines():
    body = section(FLAGBOTS, "## The board and the start")
    drawn = body.split("```text\n", 1)[1].split("```", 1)[0].rstrip("\n")
    start = game_api.get("flagbots").new_state(0)
    assert drawn == start.render()
    words = flat(section(FLAGBOTS, "## A ply: a step or a self-destruct"))
    assert "South has 48 legal actions: 41 steps and 7 self-destructs" in words
    legal = start.legal_actions()
    assert len(legal) == 48 and sum(a % 9 == 8 for a in legal) == 7
    text = flat(section(FLAGBOTS, "## The position as text"))
    shown = re.findall(r"`(\S+ [sn] \d+)`", text)
    assert shown[0] == start.observation(0)["position"]
    start.apply_action(105)
    assert "after South's `105` (c2-c3)" in text and shown[1] == start.observation(1)["position"]


# ---------------------------------------------------------------------------------- Eleusis
def test_the_harma_table_and_the_registered_game_are_the_engines():
    body = section(ELEUSIS, "## Harma, the end, the score")
    change = {
        row[0]: 0 if row[1] == "unchanged" else int(row[1].replace("−", "-")) for row in table(body)
    }
    assert change == {
        "both right": harma_change(3),
        "only the suit right, or only the number": harma_change(1),
        "both wrong": harma_change(0),
    }
    assert harma_change(1) == harma_change(2)
    game = game_api.get("eleusis")
    assert (game.harma, game.cap) == (100, 2000)
    words = flat(page(ELEUSIS))
    assert "**100 harma**" in words and "**cap of 2,000 guesses**" in words


def test_the_eleusis_observation_and_legal_are_as_documented():
    body = section(ELEUSIS, "## Observation and actions")
    fields = [r[0] for r in table(body) if r[0]]
    play = game_api.get("eleusis").new_state(0)
    assert fields == list(play.observation(0))
    legal = play.legal_actions()
    assert len(legal) == 52 and legal[0] == "C 1" and legal[12] == "C 13"
    assert legal[13] == "D 1" and legal[-1] == "S 13"
    play.apply_action("H 12")
    assert set(play.observation(0)["last"]) == {"guess", "suit_right", "number_right"}


def test_the_eleusis_worked_example_scores_as_the_engine_scores_it():
    body = section(ELEUSIS, "## Worked example")
    words = flat(body)
    assert "`sparring.eleusis.game.Eleusis(harma=4, cap=10).new_state(17)`" in words
    play = Eleusis(harma=4, cap=10).new_state(17)
    rows = table(body)
    for guess, suit_right, number_right, harma in rows:
        assert not play.is_terminal()
        play.apply_action(guess)
        obs = play.observation(0)
        assert obs["last"] == {
            "guess": guess,
            "suit_right": suit_right == "true",
            "number_right": number_right == "true",
        }
        assert obs["harma"] == int(harma)
    assert play.is_terminal() and play.observation(0)["finished"]
    assert f"after {len(rows)} guesses" in words and "`returns` = `[-6.0]`" in words
    assert play.returns() == [-6.0] == [-float(len(rows))]

    assert "stop after the third, at harma 5: a DNF, `returns` = `[-3.0]`" in words
    short = Eleusis(harma=4, cap=3).new_state(17)
    for guess, *_ in rows[:3]:
        short.apply_action(guess)
    obs = short.observation(0)
    assert short.is_terminal() and obs["dnf"] and not obs["finished"] and obs["harma"] == 5
    assert short.returns() == [-3.0]


@pytest.mark.parametrize("name", ["flagbots", "poker"])
def test_the_observation_tables_of_flagbots_and_poker_name_every_field(name):
    fields = [r[0] for r in table(section(f"rules/{name}.md", "## Observation"))]
    state = game_api.get(name).new_state(0)
    assert fields == list(state.observation(state.current_player()))


@pytest.mark.parametrize("name", PAGES)
def test_every_line_is_at_most_100_characters(name):
    long = [i for i, line in enumerate(page(name).splitlines(), 1) if len(line) > 100]
    assert not long, f"docs/{name}: lines over 100 characters: {long}"
