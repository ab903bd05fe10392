"""The count against the worked examples E1–E6 of specs/mus.md §9.5."""

from sparring.mus.cards import parse_faces
from sparring.mus.lance import ENVIDO, NO_QUIERO, PASO, QUIERO, SUBIR, Action, Lance
from sparring.mus.scoring import Count, Table, count_hand

# seat 0 (A): R R 7 A; seat 1 (B): C S 5 4; seat 2 (A): A A 4 5; seat 3 (B): R C 6 6
EXAMPLE = Table(tuple(parse_faces(h) for h in ("R R 7 A", "C S 5 4", "A A 4 5", "R C 6 6")), 0)


def lances_for(table):
    names = ["grande", "chica", "pares", "juego" if table.anyone_has_juego() else "punto"]
    return {n: Lance(n, table.participants(n)) for n in names}


def run(lance, count, *steps):
    for seat, kind, *amount in steps:
        assert lance.actor() == seat
        paid = lance.apply(Action(kind, *amount))
        if paid:
            count.add(lance.name, *paid)


def test_who_wins_and_who_takes_part():
    assert EXAMPLE.card_winner("grande") == 0 and EXAMPLE.card_winner("chica") == 2
    assert EXAMPLE.participants("pares") == (0, 2, 3) and EXAMPLE.card_winner("pares") == 0
    assert EXAMPLE.participants("juego") == (3,)
    assert lances_for(EXAMPLE)["juego"].status == "sin_envite"


def test_e1_everything_en_paso():
    lances = lances_for(EXAMPLE)
    for name in ("grande", "chica", "pares"):
        lance = lances[name]
        while not lance.closed:
            lance.apply(Action(PASO))
    count = count_hand(EXAMPLE, lances, Count([0, 0]))
    assert count.scores == [4, 2]


def test_e2_negadas_then_a_querido_pares():
    lances, count = lances_for(EXAMPLE), Count([0, 0])
    run(lances["grande"], count, (0, ENVIDO, 2), (1, NO_QUIERO), (3, NO_QUIERO))
    run(
        lances["chica"],
        count,
        (0, PASO),
        (1, ENVIDO, 2),
        (2, SUBIR, 3),
        (3, NO_QUIERO),
        (1, NO_QUIERO),
    )
    assert count.scores == [3, 0]  # A +1 and A +2 written at once
    run(lances["pares"], count, (0, PASO), (2, PASO), (3, ENVIDO, 2), (0, QUIERO))
    count_hand(EXAMPLE, lances, count)
    assert count.scores == [7, 2]
    assert ("pares", 0, 4) in count.entries and ("juego", 1, 2) in count.entries


def test_e3_the_juego_ends_during_the_count():
    # B holds the best chica (A A A 4 at seat 1); grande en paso to A, chica querido(2) to B.
    table = Table(tuple(parse_faces(h) for h in ("R R 7 6", "A A A 4", "C S 6 5", "R 7 6 5")), 0)
    lances = lances_for(table)
    g = lances["grande"]
    while not g.closed:
        g.apply(Action(PASO))
    run(lances["chica"], Count([0, 0]), (0, ENVIDO, 2), (1, QUIERO))
    count = count_hand(table, lances, Count([38, 39]))
    assert count.scores == [39, 41] and count.winner == 1
    assert [e[0] for e in count.entries] == ["grande", "chica"]  # pares/juego never written


def test_e4_a_negada_ends_the_juego_at_once():
    lances, count = lances_for(EXAMPLE), Count([39, 30])
    run(lances["grande"], count, (0, PASO), (1, ENVIDO, 2), (2, NO_QUIERO), (0, NO_QUIERO))
    assert count.scores == [39, 31]
    run(lances["chica"], count, (0, ENVIDO, 2), (1, NO_QUIERO), (3, NO_QUIERO))
    assert count.scores == [40, 31] and count.winner == 0


def test_e5_punto_querido():
    # Nobody has juego; seat 1 holds the best punto (30).
    table = Table(tuple(parse_faces(h) for h in ("R 7 6 A", "R R 6 4", "4 4 5 A", "6 6 5 4")), 0)
    lances = lances_for(table)
    assert "punto" in lances and table.card_winner("punto") == 1
    for name in ("grande", "chica", "pares"):
        while not lances[name].closed:
            lances[name].apply(Action(PASO))
    run(lances["punto"], Count([0, 0]), (0, ENVIDO, 4), (1, QUIERO))
    count = count_hand(table, {"punto": lances["punto"]}, Count([0, 0]))
    assert count.scores == [0, 5]


def test_e6_juego_counts_both_partners():
    # seat 0: 31 (3), seat 2: 33 (2), seat 1: 32; juego querido(2) -> A +2 +3 +2 = 7.
    table = Table(tuple(parse_faces(h) for h in ("R C S A", "R C S 2", "R R 7 6", "4 5 6 7")), 0)
    lances = lances_for(table)
    assert table.participants("juego") == (0, 1, 2)
    run(lances["juego"], Count([0, 0]), (0, ENVIDO, 2), (1, QUIERO))
    count = count_hand(table, {"juego": lances["juego"]}, Count([0, 0]))
    assert count.scores == [7, 0]
