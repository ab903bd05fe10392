"""The informed reference: the family's decks, exact Bayes updates, and what it shows."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sparring.eleusis.bench import run_cell
from sparring.eleusis.cards import card_index
from sparring.eleusis.decks import make_deck
from sparring.eleusis.env import EleusisGame
from sparring.eleusis.feedback import consistent_cards
from sparring.eleusis.hypotheses import finite_families, hypotheses
from sparring.eleusis.informed import informed_observe
from sparring.eleusis.scientists import Scientist
from sparring.eleusis.theory import d_of


@pytest.mark.parametrize(
    ("deck", "count"),
    [
        ("spike:alpha=0.5", 52),
        ("suit_rank:suit=0.7,rank=0.5", 52),  # 4 suits x 13 numbers
        ("suit_biased:strength=0.7", 4),
        ("rank_biased", 13),
        ("point_mass", 52),
        ("best_ne_mode", 1),
        ("uniform", 1),
        ("suit_biased:strength=0.25", 1),  # a "bias" equal to the rest: all four are one deck
    ],
)
def test_hypotheses_are_every_deck_the_family_can_deal(deck, count):
    hyps = hypotheses(deck)
    assert hyps.shape == (count, 52)
    assert np.allclose(hyps.sum(axis=1), 1.0)
    assert len({row.round(12).tobytes() for row in hyps}) == count  # distinct
    for seed in range(60):  # the generator's decks are all among them
        p = make_deck(deck, seed)
        assert np.isclose(hyps, p, atol=1e-12).all(axis=1).any(), (deck, seed)


def test_families_without_a_finite_set_of_decks_are_refused_with_the_alternatives():
    assert finite_families() == [
        "point_mass", "spike", "suit_biased", "rank_biased", "suit_rank", "best_ne_mode", "uniform"
    ]  # fmt: skip
    for deck, why in [("zipf:s=2", "rng.permutation"), ("dirichlet", "rng.dirichlet"),
                      ("k_uniform:k=4", "rng.choice")]:  # fmt: skip
        with pytest.raises(ValueError, match=f"{deck}.*{why}.*finite families: point_mass"):
            hypotheses(deck)
    with pytest.raises(ValueError, match="needs the deck's family"):
        Scientist("informed")


@given(
    st.lists(st.tuples(st.integers(0, 51), st.integers(0, 51)), min_size=1, max_size=12),
    st.sampled_from(["spike:alpha=0.3", "suit_rank:suit=0.7,rank=0.5", "point_mass"]),
)
def test_the_posterior_is_bayes_rule_by_brute_force(rounds, deck):
    """After guesses with the feedback of drawn cards, the posterior over the family's decks
    equals prior x product of P(feedback | deck), the probability summed card by card.
    (Feedback that contradicts every deck - possible for point masses - starts over.)"""
    hyps = hypotheses(deck)
    post = np.full(len(hyps), 1 / len(hyps))
    brute = np.ones(len(hyps))
    for guess, drawn in rounds:
        code = (guess // 13 == drawn // 13) + 2 * (guess % 13 == drawn % 13)
        informed_observe(hyps, post, guess, code)
        brute *= hyps[:, consistent_cards(guess, code)].sum(axis=1)
        if brute.sum() == 0:
            brute[:] = 1.0
        assert np.allclose(post, brute / brute.sum(), atol=1e-9)


def test_one_hypothesis_makes_it_the_oracle():
    """Told best != mode (a family of one deck) it guesses D6 or D7, never the mode C1."""
    sci = Scientist("informed", family="best_ne_mode", seed=3)
    p = make_deck("best_ne_mode")
    best = {card_index("D", 6), card_index("D", 7)}
    game = EleusisGame(p, seed=3, harma=30)
    while not game.over:
        guess = sci.guess()
        assert guess in best and d_of(p)[guess] == pytest.approx(0.1)
        sci.learn(game.guess(guess).code)


def test_it_finds_the_spike_and_then_plays_like_the_oracle():
    p = make_deck("spike:alpha=0.5", 5)
    spike = int(np.argmax(p))
    sci = Scientist("informed", family="spike:alpha=0.5", seed=5)
    game = EleusisGame(p, seed=5, harma=100)
    guesses = []
    while not game.over:
        guesses.append(sci.guess())
        sci.learn(game.guess(guesses[-1]).code)
    assert sci.post[np.flatnonzero(np.isclose(sci.hyps[:, spike], 0.5))[0]] > 0.999
    assert set(guesses[-50:]) == {spike}


def test_it_sits_between_the_oracle_and_the_reports_baseline_on_spike():
    """Knowing the family is worth guesses over the baseline, yet the search for the spike's
    number keeps it well above the oracle at H0 = 100 (the easy-deck goal's floor)."""
    cells = {
        name: run_cell(("spike:alpha=0.5", 100, name), seeds=120, cap=100_000)
        for name in ("oracle", "informed", "frequency")
    }
    oracle = cells["oracle"].oracle_expected
    informed = cells["informed"].mean_guesses
    assert cells["oracle"].mean_guesses < informed < cells["frequency"].mean_guesses
    assert informed > 1.15 * oracle, (informed, oracle)


def test_a_family_that_deals_unequally_is_refused(monkeypatch):
    """The prior is uniform over the distinct decks, so it must be the generator's own."""
    from sparring.eleusis import decks

    def lopsided(rng):  # card 0 half of the time, cards 1 and 2 a quarter each
        p = np.full(52, 0.01)
        p[0 if rng.integers(2) == 0 else 1 + rng.integers(2)] = 0.5
        return p

    monkeypatch.setitem(decks.FAMILIES, "lopsided", lopsided)
    with pytest.raises(ValueError, match="unequal chances"):
        hypotheses("lopsided")
