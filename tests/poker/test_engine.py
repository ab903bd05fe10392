"""The table engine: rules on hand-built deals, conservation, rotation, used genes."""

import numpy as np
import pytest

from sparring.poker.bots import baseline_table, calling_station, maniac, tight_aggressive
from sparring.poker.catalog import N_GENES
from sparring.poker.engine import play_deals
from sparring.poker.rules import gene_index
from sparring.poker.table import play_hand_reference, seating


def make_deal(n, preflop, later=None, strength=None):
    """A synthetic deal: equity[h, street, k-1] = preflop[h] preflop, later[h] after."""
    equity = np.zeros((1, n, 4, n - 1), np.float32)
    later = preflop if later is None else later
    for h in range(n):
        equity[0, h, 0, :] = preflop[h]
        equity[0, h, 1:, :] = later[h]
    st = np.arange(1, n + 1, dtype=np.int32)[None] if strength is None else np.array([strength])
    return equity, st.astype(np.int32)


def table_of(*players):
    return np.stack(players).astype(np.int8)


def one_hand(equity, strength, players, rotation=0):
    n = strength.shape[1]
    seat_hole, seat_player = seating(n, rotation)
    return play_hand_reference(equity[0], strength[0], seat_hole, seat_player, players)


def random_deals(n, d, seed):
    rng = np.random.default_rng(seed)
    eq = np.sort(rng.random((d, n, 4, n - 1)).astype(np.float32), axis=3)[..., ::-1].copy()
    st = rng.integers(1, 300, (d, n)).astype(np.int32)  # small range: ties happen
    return eq, st


def random_players(n, seed):
    rng = np.random.default_rng(seed)
    return np.sort(rng.integers(-100, 101, (n, N_GENES, 2)), axis=2).astype(np.int8)


def test_blinds_and_everyone_folds_to_the_big_blind():
    # Weak hands everywhere: everyone folds preflop, the big blind wins the small blind.
    eq, st = make_deal(4, [0.01] * 4)
    trace = one_hand(eq, st, table_of(*[calling_station()] * 4))
    assert trace.net_by_seat == [-1.0, 1.0, 0.0, 0.0]
    assert "seat 0 (player 0) posts the small blind 1" in trace.lines[0]


def test_heads_up_button_posts_small_blind_and_acts_first_preflop():
    # N = 2: seat 1 is the button and small blind; it folds, seat 0 (big blind) wins 1.
    eq, st = make_deal(2, [0.9, 0.01])
    trace = one_hand(eq, st, table_of(calling_station(), calling_station()))
    assert "seat 1 (player 1) posts the small blind 1" in trace.lines[0]
    assert "seat 0 (player 0) posts the big blind 2" in trace.lines[1]
    assert "seat 1 (player 1) folds" in trace.lines[2]
    assert trace.net_by_seat == [1.0, -1.0]


def test_heads_up_big_blind_acts_first_after_the_flop():
    eq, st = make_deal(2, [0.55, 0.55], strength=[5, 9])
    trace = one_hand(eq, st, table_of(calling_station(), calling_station()))
    flop = trace.lines.index(next(line for line in trace.lines if line.startswith("-- flop")))
    assert trace.lines[flop + 1].startswith("seat 0 (player 0) checks")


def test_bet_sizes_per_street_and_the_four_bet_cap():
    # Two maniacs with raising equity: every street reaches the cap of 4 bets.
    eq, st = make_deal(2, [0.9, 0.9], strength=[10, 20])
    trace = one_hand(eq, st, table_of(maniac(), maniac()))
    # Preflop: big blind (1 bet) + 3 raises of 2 = 8 each; flop 4 bets of 2 = 8;
    # turn and river 4 bets of 4 = 16 each: 48 per player.
    assert trace.net_by_seat == [-48.0, 48.0]  # seat 1 holds the stronger hand
    raises = [line for line in trace.lines if " raises " in line or " bets " in line]
    assert len(raises) == 3 + 4 * 3  # preflop raises + three capped streets
    assert any(" raises 8 " in line for line in trace.lines)  # a turn raise costs 4 + 4


def test_fold_when_nothing_is_owed_is_a_check():
    # Weak postflop equity with fold genes: the player checks instead of folding.
    folder = np.full((N_GENES, 2), 100, dtype=np.int8)
    eq, st = make_deal(2, [0.6, 0.6], later=[0.05, 0.05], strength=[3, 3])
    trace = one_hand(eq, st, table_of(folder, folder))
    assert not any("folds" in line for line in trace.lines)
    assert trace.net_by_seat == [0.0, 0.0]  # checked down, equal strength: split


def test_split_pot_is_shared_exactly():
    eq, st = make_deal(3, [0.9, 0.9, 0.9], strength=[50, 50, 10])
    trace = one_hand(eq, st, table_of(*[calling_station()] * 3))
    assert trace.net_by_seat[0] == trace.net_by_seat[1] > 0
    assert sum(trace.net_by_seat) == 0


@pytest.mark.parametrize("n", [2, 3, 6, 10])
def test_chips_are_conserved_and_kernel_matches_reference(n):
    """Every rotation of every deal, hand by hand against the readable reference (the kernel
    plays each preflop once for all seatings and tracks seats as bit masks; the reference
    plays each hand from the start, seat by seat)."""
    eq, st = random_deals(n, 12, seed=n)
    players = random_players(n, seed=100 + n)
    result = play_deals(eq, st, players)
    np.testing.assert_allclose(result.net_per_deal.sum(axis=1), 0, atol=1e-9)
    for d in range(12):
        net = np.zeros(n)
        used = set()
        for rotation in range(n * n):
            seat_hole, seat_player = seating(n, rotation)
            trace = play_hand_reference(eq[d], st[d], seat_hole, seat_player, players)
            assert abs(sum(trace.net_by_seat)) < 1e-9
            for s in range(n):
                net[seat_player[s]] += trace.net_by_seat[s]
            used |= trace.used
        single = play_deals(eq[d : d + 1], st[d : d + 1], players)
        np.testing.assert_allclose(single.net_per_deal[0], net)
        assert set(zip(*np.nonzero(single.used), strict=True)) == used


def test_rotation_plays_every_hole_pair_from_every_seat_once():
    n = 6
    pairs = {
        (p, s, h) for r in range(n * n) for s, (h, p) in enumerate(zip(*seating(n, r), strict=True))
    }
    assert len(pairs) == n**3  # each (player, seat, hole) exactly once
    assert play_deals(*random_deals(n, 3, 1), random_players(n, 2)).hands == 3 * n * n


def test_identical_players_break_even_by_symmetry():
    eq, st = random_deals(5, 10, seed=3)
    players = np.stack([tight_aggressive()] * 5)
    np.testing.assert_allclose(play_deals(eq, st, players).net, 0, atol=1e-9)


def test_results_do_not_depend_on_how_deals_are_chunked():
    eq, st = random_deals(6, 12, seed=4)
    players = random_players(6, seed=5)
    whole = play_deals(eq, st, players)
    parts = [play_deals(eq[i : i + 5], st[i : i + 5], players) for i in range(0, 12, 5)]
    np.testing.assert_array_equal(
        np.concatenate([p.net_per_deal for p in parts]), whole.net_per_deal
    )
    np.testing.assert_array_equal(np.any([p.used for p in parts], axis=0), whole.used)


def test_gene_index_covers_540_genes_exactly_once():
    seen = {
        gene_index(street, opp, act, call, pot)
        for street in (1, 2, 3)
        for opp in (1, 2, 3, 4, 5)
        for act in (0, 1, 2)
        for call in (0, 1, 2, 3)
        for pot in (0, 12, 24)
    }
    assert seen == set(range(N_GENES))
    assert gene_index(1, 9, 7, 5, 100) == gene_index(1, 5, 2, 3, 24)  # buckets saturate


def test_bad_shapes_are_refused():
    eq, st = random_deals(3, 2, seed=1)
    with pytest.raises(ValueError, match="chromosomes must have shape"):
        play_deals(eq, st, random_players(4, 1))
    with pytest.raises(ValueError, match="equity must have shape"):
        play_deals(eq[:, :, :3], st, random_players(3, 1))
    with pytest.raises(ValueError, match="2..10 seats"):
        play_deals(np.zeros((1, 1, 4, 0)), np.zeros((1, 1)), np.zeros((1, N_GENES, 2)))


def test_baseline_tables_have_the_right_shape_and_order():
    for name in ("calling_station", "maniac", "random", "tight_aggressive", "mixed"):
        table = baseline_table(name, 9, seed=1)
        assert table.shape == (9, N_GENES, 2) and table.dtype == np.int8
        assert np.all(table[..., 0] <= table[..., 1])
        assert table.min() >= -100 and table.max() <= 100
    with pytest.raises(ValueError, match="unknown baseline table"):
        baseline_table("shark", 9)
