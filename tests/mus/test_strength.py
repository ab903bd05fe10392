"""Mus cards, lance keys and exact percentiles against the spec's examples and test vectors."""

from math import comb

import numpy as np
import pytest

from sparring.mus.cards import effective_rank, hand_points, hand_ranks, parse_faces, point_value
from sparring.mus.keys import chica_key, grande_key, juego_key, pares_key, punto_key, winner
from sparring.mus.strength import (
    LANCE_KEYS,
    Percentile,
    category_counts,
    multisets,
    percentile,
    rank_classes,
    scan,
    weight,
)


def ranks(text, ocho_reyes=True):
    return hand_ranks(parse_faces(text), ocho_reyes)


def test_card_readings():
    assert effective_rank(3) == 12 and effective_rank(2) == 1
    assert effective_rank(3, ocho_reyes=False) == 3
    assert point_value(3) == 10 and point_value(2) == 1 and point_value(11) == 10
    assert point_value(3, ocho_reyes=False) == 3
    assert hand_points(parse_faces("R C S A")) == 31
    with pytest.raises(ValueError, match="4 cards"):
        parse_faces("R R R")
    with pytest.raises(ValueError, match="unknown card 'X'"):
        parse_faces("R R R X")


def test_section_7_examples():
    assert grande_key(ranks("R R C A")) > grande_key(ranks("R R S 7"))
    assert grande_key(ranks("R 7 6 5")) > grande_key(ranks("C C C C"))
    assert grande_key(ranks("3 C S 7")) == grande_key(ranks("R C S 7"))
    assert chica_key(ranks("A A 4 5")) > chica_key(ranks("A A 4 6"))
    assert chica_key(ranks("A R R R")) > chica_key(ranks("4 4 5 5"))
    assert chica_key(ranks("A 2 4 5")) == chica_key(ranks("A A 4 5"))
    assert pares_key(ranks("R R R R")) > pares_key(ranks("R R C C")) > pares_key(ranks("R R A A"))
    assert pares_key(ranks("R R A A")) > pares_key(ranks("C C C C")) > pares_key(ranks("C C S S"))
    assert pares_key(ranks("R R 7 6")) == pares_key(ranks("R R 5 4"))  # kickers ignored
    assert pares_key(ranks("R 3 6 5")) == pares_key(ranks("R R 6 5"))  # 3 = king
    assert pares_key(ranks("R R 3 3")) == (3, 12, 12)  # four kings: the best pares hand
    # the lowest duples still beat the best medias
    assert pares_key(ranks("4 4 A A")) > pares_key(ranks("R R R 4")) > pares_key(ranks("R R 7 6"))
    assert pares_key(ranks("A 4 6 R")) is None
    totals = [
        hand_points(parse_faces(h))
        for h in ("R C S A", "7 7 7 R", "R R R R", "R R R 7", "R R 7 6", "R R 7 7")
    ]
    assert totals == [31, 31, 40, 37, 33, 34]
    order = [31, 32, 40, 37, 36, 35, 34, 33]
    assert [juego_key(t) for t in order] == sorted((juego_key(t) for t in order), reverse=True)
    assert juego_key(30) is None and punto_key(30) == 30 and punto_key(31) is None
    assert juego_key(31, real=True) > juego_key(31)


def test_ties_go_to_the_player_nearest_the_mano():
    keys = [(5,), (7,), (7,), (6,)]
    assert winner(keys, mano=0) == 1
    assert winner(keys, mano=2) == 2  # seat 2 comes before seat 1 going round from 2
    assert winner([None, None, None, None], mano=0) is None


@pytest.mark.parametrize(("ocho", "count"), [(True, 330), (False, 715)])
def test_multiset_counts_and_weights_cover_every_hand(ocho, count):
    sets = multisets(ocho)
    assert len(sets) == count
    available = {r: n for r, n, _ in rank_classes(ocho)}
    assert sum(weight(m, available) for m in sets) == comb(40, 4) == 91_390
    own = ranks("R R C A", ocho)
    for r in own:
        available[r] -= 1
    assert sum(weight(m, available) for m in sets) == comb(36, 4) == 58_905


@pytest.mark.parametrize(
    ("ocho", "lance", "classes"),
    [
        (True, "grande", 330),
        (False, "grande", 715),
        (True, "chica", 330),
        (False, "chica", 715),
        (True, "pares", 52),
        (False, "pares", 75),
        (True, "juego", 8),
        (False, "juego", 8),
        (True, "punto", 25),
        (False, "punto", 27),
    ],
)
def test_distinct_strength_classes(ocho, lance, classes):
    keys = {LANCE_KEYS[lance](m) for m in multisets(ocho)} - {None}
    assert len(keys) == classes


def test_full_deck_frequencies_section_14_2():
    c = category_counts()
    assert (c["no pares"], c["pareja"], c["medias"], c["duples"]) == (39680, 43776, 4448, 3486)
    juego = {t: c.get(f"juego {t}", 0) for t in range(31, 41)}
    assert juego == {
        31: 8384,
        32: 2640,
        33: 1920,
        34: 2960,
        35: 2240,
        36: 2240,
        37: 2240,
        38: 0,
        39: 0,
        40: 1820,
    }
    assert sum(juego.values()) == 24_444
    punto = {
        4: 70,
        7: 224,
        8: 224,
        9: 224,
        10: 392,
        11: 448,
        12: 616,
        13: 1824,
        14: 808,
        15: 832,
        16: 2697,
        17: 2704,
        18: 2740,
        19: 3424,
        20: 2661,
        21: 3312,
        22: 7912,
        23: 3504,
        24: 3045,
        25: 6208,
        26: 5684,
        27: 5648,
        28: 6033,
        29: 2688,
        30: 3024,
    }
    assert {t: c.get(f"punto {t}", 0) for t in range(4, 31) if c.get(f"punto {t}")} == punto
    assert sum(punto.values()) == 66_946


@pytest.mark.parametrize(
    ("lance", "hand", "p_lt", "p_eq"),
    [
        ("grande", "R R R R", 0.99923, 0.00077),
        ("grande", "R R C A", 0.94347, 0.00980),
        ("grande", "R C S 7", 0.80490, 0.00560),
        ("grande", "R 7 4 A", 0.50307, 0.01120),
        ("grande", "7 6 5 4", 0.09468, 0.00280),
        ("chica", "A A A A", 0.99923, 0.00077),
        ("chica", "A A 4 5", 0.97289, 0.00490),
        ("chica", "A 4 5 6", 0.80490, 0.00560),
        ("chica", "A R R R", 0.39348, 0.00490),
        ("chica", "4 5 6 7", 0.35710, 0.00280),
        ("pares", "R R A A", 0.97963, 0.00858),
        ("pares", "R R R 4", 0.94225, 0.01961),
        ("pares", "R R 5 4", 0.78083, 0.13236),
        ("pares", "A A 5 4", 0.43418, 0.13236),
    ],
)
def test_percentile_vectors_section_14_4(lance, hand, p_lt, p_eq):
    p = percentile(lance, ranks(hand))
    assert p.p_lt == pytest.approx(p_lt, abs=5e-6)
    assert p.p_eq == pytest.approx(p_eq, abs=5e-6)
    assert p.mid == pytest.approx(p_lt + p_eq / 2, abs=1e-5)
    assert p.win_chance(nearer_mano=True) == pytest.approx(p_lt + p_eq, abs=1e-5)


def test_eligible_percentiles_and_own_cards_removed():
    p = percentile("pares", ranks("R R 5 4"))
    assert p.p_participates == pytest.approx(1 - 39680 / 91390)
    assert 0 < p.eligible_p_lt < p.p_lt  # among pares hands a pair of kings ranks lower
    none = percentile("pares", ranks("A 4 6 R"))
    assert none.p_lt == 0 and none.p_eq == pytest.approx(39680 / 91390)
    own = percentile("grande", ranks("R R R R"), exclude_own=True)
    assert own.p_eq == pytest.approx(comb(4, 4) / comb(36, 4))  # only the 4 kings left
    with pytest.raises(ValueError, match="unknown lance"):
        percentile("envido", ranks("R R R R"))


def test_sure_hands():
    from sparring.mus.strength import is_segura

    assert is_segura("grande", ranks("R R R R"), distance=0)
    assert not is_segura("grande", ranks("R R R R"), distance=1)  # the other 4 kings can tie
    assert is_segura("chica", ranks("A A A A"), distance=0)
    assert is_segura("juego", ranks("R C S A"), distance=0)  # la 31 de mano
    assert not is_segura("juego", ranks("R C S A"), distance=2)
    assert is_segura("punto", ranks("R R S 7"), distance=0) is False  # 37 is juego, not punto
    assert is_segura("punto", ranks("R R 6 4"), distance=0)  # 30 de mano
    assert not is_segura("grande", ranks("R R R C"), distance=0)
    assert not is_segura("pares", ranks("A 4 6 R"), distance=0)


@pytest.mark.parametrize("ocho", [True, False])
@pytest.mark.parametrize("lance", sorted(LANCE_KEYS))
def test_the_full_deck_table_is_every_pairwise_comparison_to_the_last_bit(ocho, lance):
    """``percentile`` reads a table built in one pass (hands grouped by key, counted below
    each key). Every hand, in either order of its cards, gets exactly (``==``) the shares
    that comparing it with every other hand gives, and a sample matches ``scan``, the
    definition (one hand against every multiset)."""
    hands = multisets(ocho)
    full = {r: n for r, n, _ in rank_classes(ocho)}
    sets = np.array([weight(m, full) for m in hands], dtype=np.int64)
    keys = [LANCE_KEYS[lance](m) for m in hands]
    order = {k: i for i, k in enumerate(sorted({k for k in keys if k is not None}))}
    level = np.array([-1 if k is None else order[k] for k in keys])  # None below every key
    below = level[None, :] < level[:, None]  # [i, j]: hand j's key is below hand i's
    same = level[None, :] == level[:, None]
    takes_part = level >= 0
    total, part = int(sets.sum()), int(sets[takes_part].sum())
    for i, hand in enumerate(hands):
        lt = int(sets[below[i]].sum()) if takes_part[i] else 0
        eq = int(sets[same[i]].sum())
        part_lt = int(sets[below[i] & takes_part].sum()) if takes_part[i] else 0
        part_eq = eq if takes_part[i] else 0
        want = Percentile(lt / total, eq / total, part_lt / part, part_eq / part, part / total)
        assert percentile(lance, hand, ocho) == want, hand
        assert percentile(lance, hand[::-1], ocho) == want, hand
    for hand in hands[::37]:
        assert scan(lance, hand, ocho) == percentile(lance, hand, ocho), hand
