"""Hold'em equity against random opponent hands: Monte Carlo, or exact when it is cheaper.

Equity counts a k-way tie for the best hand as 1/k of the pot. ``equity`` answers one question
(hero, board, opponents) and ``equity_batch`` answers many in one numba kernel; both enumerate
exactly whenever the number of (board completion, ordered opponent hands) combinations is at
most ``trials``.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np
from numba import njit

from sparring.poker.cards import as_cards, format_cards
from sparring.poker.catalog import MAX_OPPONENTS
from sparring.poker.evaluator import CARD_BITS, CARD_KEYS, SUIT_START, value7
from sparring.seeding import below, next_u64, seed_state, stream_state

METHODS = ("auto", "exact", "monte_carlo")
MAX_EXACT = 50_000_000  # refuse method="exact" beyond this many combinations


@dataclass(frozen=True)
class EquityResult:
    """Hero's share of the pot: ``equity = win + tie shares``; ``tie`` is the fraction of
    outcomes where hero ties for the best hand; ``stderr`` is 0 when ``exact``."""

    win: float
    tie: float
    equity: float
    stderr: float
    trials: int
    exact: bool

    def __post_init__(self) -> None:
        for name in ("win", "tie", "equity", "stderr"):
            object.__setattr__(self, name, float(getattr(self, name)))


def combinations_count(board_cards: int, opponents: int) -> int:
    """How many (board completion, ordered opponent hole pairs) outcomes there are."""
    deck = 52 - 2 - board_cards
    missing = 5 - board_cards
    total = comb(deck, missing)
    left = deck - missing
    for _ in range(opponents):
        total *= comb(left, 2)
        left -= 2
    return total


def _binomials() -> np.ndarray:
    table = np.zeros((53, 6), dtype=np.int64)
    for n in range(53):
        for k in range(6):
            table[n, k] = comb(n, k)
    return table


_BINOM = _binomials()


@njit(cache=True)
def _showdown(hero_value, opp_best, opp_ties):
    """(win, tie, share) of one outcome: hero vs the best opponent and how many share it."""
    if hero_value > opp_best:
        return 1.0, 0.0, 1.0
    if hero_value == opp_best:
        return 0.0, 1.0, 1.0 / (opp_ties + 1)
    return 0.0, 0.0, 0.0


@njit(cache=True)
def _board_key(board, visible):
    """Summed key (plus SUIT_START) and OR-ed bits of the visible board cards."""
    key = np.int64(SUIT_START)
    bits = np.int64(0)
    for j in range(visible):
        key += CARD_KEYS[board[j]]
        bits |= CARD_BITS[board[j]]
    return key, bits


@njit(cache=True)
def _remaining_deck(hole0, hole1, board, visible):
    used = np.zeros(52, dtype=np.bool_)
    used[hole0] = True
    used[hole1] = True
    for j in range(visible):
        used[board[j]] = True
    deck = np.empty(52 - 2 - visible, dtype=np.uint8)
    n = 0
    for c in range(52):
        if not used[c]:
            deck[n] = c
            n += 1
    return deck


@njit(cache=True)
def _monte_carlo(hole0, hole1, board, visible, opponents, trials, state, stats):
    """Accumulate (win, tie, equity, equity^2) sums over ``trials`` random outcomes."""
    deck = _remaining_deck(hole0, hole1, board, visible)
    n_deck = deck.shape[0]
    base_key, base_bits = _board_key(board, visible)
    missing = 5 - visible
    need = missing + 2 * opponents
    for _ in range(trials):
        # Partial Fisher-Yates: the first `need` slots become a uniform random draw.
        for j in range(need):
            state, bits = next_u64(state)
            r = j + below(bits, n_deck - j)
            tmp = deck[j]
            deck[j] = deck[r]
            deck[r] = tmp
        key = base_key
        bits_b = base_bits
        for j in range(missing):
            key += CARD_KEYS[deck[j]]
            bits_b |= CARD_BITS[deck[j]]
        hero = value7(
            key + CARD_KEYS[hole0] + CARD_KEYS[hole1], bits_b | CARD_BITS[hole0] | CARD_BITS[hole1]
        )
        best = -1
        ties = 0
        for p in range(opponents):
            a = deck[missing + 2 * p]
            b = deck[missing + 2 * p + 1]
            v = value7(key + CARD_KEYS[a] + CARD_KEYS[b], bits_b | CARD_BITS[a] | CARD_BITS[b])
            if v > best:
                best = v
                ties = 1 if v == hero else 0
            elif v == best and v == hero:
                ties += 1
        w, t, s = _showdown(hero, best, ties)
        stats[0] += w
        stats[1] += t
        stats[2] += s
        stats[3] += s * s
    return state


@njit(cache=True)
def _unrank(index, n, r, binom, out):
    """The ``index``-th r-subset of range(n) in the combinatorial number system."""
    for i in range(r, 0, -1):
        c = i - 1
        while binom[c + 1, i] <= index:
            c += 1
        out[i - 1] = c
        index -= binom[c, i]


@njit(cache=True)
def _exact(hole0, hole1, board, visible, opponents, binom, stats):
    """Sum (win, tie, equity) over every outcome; returns how many outcomes there were."""
    deck = _remaining_deck(hole0, hole1, board, visible)
    n_deck = deck.shape[0]
    missing = 5 - visible
    n_board = binom[n_deck, missing]
    total = n_board
    left = n_deck - missing
    for _ in range(opponents):
        total *= binom[left, 2]
        left -= 2
    pick = np.empty(5, dtype=np.int64)
    rest = np.empty(n_deck, dtype=np.uint8)
    base_key, base_bits = _board_key(board, visible)
    for t in range(total):
        idx = t
        _unrank(idx % n_board, n_deck, missing, binom, pick)
        idx //= n_board
        key = base_key
        bits_b = base_bits
        m = 0
        k = 0
        for c in range(n_deck):
            if k < missing and pick[k] == c:
                key += CARD_KEYS[deck[c]]
                bits_b |= CARD_BITS[deck[c]]
                k += 1
            else:
                rest[m] = deck[c]
                m += 1
        hero = value7(
            key + CARD_KEYS[hole0] + CARD_KEYS[hole1], bits_b | CARD_BITS[hole0] | CARD_BITS[hole1]
        )
        best = -1
        ties = 0
        for _p in range(opponents):
            n_pairs = binom[m, 2]
            _unrank(idx % n_pairs, m, 2, binom, pick)
            idx //= n_pairs
            a = rest[pick[0]]
            b = rest[pick[1]]
            v = value7(key + CARD_KEYS[a] + CARD_KEYS[b], bits_b | CARD_BITS[a] | CARD_BITS[b])
            if v > best:
                best = v
                ties = 1 if v == hero else 0
            elif v == best and v == hero:
                ties += 1
            # Drop the two dealt cards (pick[0] < pick[1]) from the rest.
            w = 0
            for c in range(m):
                if c != pick[0] and c != pick[1]:
                    rest[w] = rest[c]
                    w += 1
            m = w
        win, tie, share = _showdown(hero, best, ties)
        stats[0] += win
        stats[1] += tie
        stats[2] += share
    return total


@njit(cache=True)
def _equity_batch_kernel(
    holes, boards, visible, opponents, trials, exact_limit, seed, keys, binom, out
):
    stats = np.zeros(4)
    for i in range(holes.shape[0]):
        stats[:] = 0.0
        k = opponents[i]
        v = visible[i]
        total = binom[50 - v, 5 - v]
        left = 45
        for _ in range(k):
            if total > exact_limit:
                break  # stop before the product overflows int64
            total *= binom[left, 2]
            left -= 2
        if total <= exact_limit:
            n = _exact(holes[i, 0], holes[i, 1], boards[i], v, k, binom, stats)
        else:
            _monte_carlo(
                holes[i, 0],
                holes[i, 1],
                boards[i],
                v,
                k,
                trials,
                stream_state(seed, keys[i]),
                stats,
            )
            n = trials
        out[i] = stats[2] / n


def equity(
    hero,
    board="",
    opponents: int = 1,
    trials: int = 200_000,
    seed: int = 0,
    method: str = "auto",
) -> EquityResult:
    """Equity of ``hero`` (two cards, text or ints) against ``opponents`` random hands.

    ``board`` holds the 0..5 visible board cards. With ``method="auto"`` the answer is exact
    when there are at most ``trials`` outcomes, else Monte Carlo over ``trials`` outcomes with
    the given ``seed``; ``"exact"`` and ``"monte_carlo"`` force one way.
    """
    hole, board_cards = check_situation(hero, board, opponents)
    if not isinstance(trials, (int, np.integer)) or trials <= 0:
        raise ValueError(f"trials must be a positive integer, got {trials!r}")
    if method not in METHODS:
        raise ValueError(f"method {method!r} is not one of {', '.join(METHODS)}")
    visible = len(board_cards)
    padded = np.zeros(5, dtype=np.uint8)
    padded[:visible] = board_cards
    count = combinations_count(visible, opponents)
    exact = method == "exact" or (method == "auto" and count <= trials)
    if exact and count > MAX_EXACT:
        raise ValueError(
            f"exact enumeration needs {count:,} outcomes (limit {MAX_EXACT:,}); "
            "use method='monte_carlo' or 'auto'"
        )
    stats = np.zeros(4)
    if exact:
        n = _exact(hole[0], hole[1], padded, visible, opponents, _BINOM, stats)
        n = int(n)
        return EquityResult(stats[0] / n, stats[1] / n, stats[2] / n, 0.0, n, True)
    state = np.uint64(stream_state(seed_state(seed), 0))
    _monte_carlo(hole[0], hole[1], padded, visible, opponents, int(trials), state, stats)
    mean = stats[2] / trials
    var = max(stats[3] / trials - mean * mean, 0.0)
    stderr = float(np.sqrt(var / trials))
    return EquityResult(stats[0] / trials, stats[1] / trials, mean, stderr, int(trials), False)


def check_situation(hero, board, opponents) -> tuple[np.ndarray, np.ndarray]:
    """Validate hero (2 cards), board (0..5 cards, none shared with hero) and opponents."""
    hole = as_cards(hero, what="hero")
    if hole.size != 2:
        raise ValueError(
            f"hero must be exactly two cards, got {hole.size} ({format_cards(hole)!r})"
        )
    board_cards = as_cards(board, what="board")
    if board_cards.size > 5:
        raise ValueError(f"board has at most 5 cards, got {board_cards.size}")
    shared = set(hole.tolist()) & set(board_cards.tolist())
    if shared:
        raise ValueError(f"duplicate card {format_cards(sorted(shared)[:1])} in hero and board")
    if not isinstance(opponents, (int, np.integer)) or not 1 <= opponents <= MAX_OPPONENTS:
        raise ValueError(f"opponents must be an integer in 1..{MAX_OPPONENTS}, got {opponents!r}")
    return hole, board_cards


def equity_batch(
    holes: np.ndarray,
    boards: np.ndarray,
    visible: np.ndarray,
    opponents: np.ndarray,
    trials: int,
    seed: int,
    keys: np.ndarray | None = None,
) -> np.ndarray:
    """Equity per row against ``opponents[i]`` random hands, float32 (m,).

    ``holes`` (m, 2) and ``boards`` (m, 5) are card arrays; only the first ``visible[i]`` board
    cards of a row are known. Each Monte Carlo row draws from its own stream keyed by
    ``keys[i]`` (default: the row index), so a pipeline that passes global row ids gets the same
    numbers however it chunks the rows. Rows with at most ``trials`` outcomes are exact.
    """
    holes = np.ascontiguousarray(holes, dtype=np.uint8)
    boards = np.ascontiguousarray(boards, dtype=np.uint8)
    m = holes.shape[0]
    visible = np.ascontiguousarray(np.broadcast_to(visible, (m,)), dtype=np.int64)
    opponents = np.ascontiguousarray(np.broadcast_to(opponents, (m,)), dtype=np.int64)
    keys = np.arange(m, dtype=np.int64) if keys is None else np.asarray(keys, dtype=np.int64)
    if holes.shape != (m, 2) or boards.shape != (m, 5) or keys.shape != (m,):
        raise ValueError("equity_batch: holes (m, 2), boards (m, 5), keys (m,) must agree")
    if m and (holes.max() > 51 or boards.max() > 51):
        raise ValueError("equity_batch: card values must be in 0..51")
    if m and (visible.min() < 0 or visible.max() > 5):
        raise ValueError("equity_batch: visible board counts must be in 0..5")
    if m and (opponents.min() < 1 or opponents.max() > MAX_OPPONENTS):
        raise ValueError(f"equity_batch: opponents must be in 1..{MAX_OPPONENTS}")
    if trials <= 0:
        raise ValueError(f"equity_batch: trials must be positive, got {trials}")
    out = np.empty(m, dtype=np.float32)
    _equity_batch_kernel(
        holes,
        boards,
        visible,
        opponents,
        int(trials),
        int(trials),
        seed_state(seed),
        keys,
        _BINOM,
        out,
    )
    return out


@njit(cache=True)
def equity_by_opponents_kernel(hole0, hole1, board, visible, max_opponents, trials, state, shares):
    """Monte Carlo equity against k = 1..max_opponents random hands at once.

    Each outcome deals ``max_opponents`` hands; the equity against k opponents uses the first
    k of them, so every ``shares[k-1] / trials`` is an unbiased estimate (the k's share draws).
    Returns the advanced random state.
    """
    deck = _remaining_deck(hole0, hole1, board, visible)
    n_deck = deck.shape[0]
    base_key, base_bits = _board_key(board, visible)
    missing = 5 - visible
    need = missing + 2 * max_opponents
    shares[:max_opponents] = 0.0
    for _ in range(trials):
        for j in range(need):
            state, bits = next_u64(state)
            r = j + below(bits, n_deck - j)
            tmp = deck[j]
            deck[j] = deck[r]
            deck[r] = tmp
        key = base_key
        bits_b = base_bits
        for j in range(missing):
            key += CARD_KEYS[deck[j]]
            bits_b |= CARD_BITS[deck[j]]
        hero = value7(
            key + CARD_KEYS[hole0] + CARD_KEYS[hole1], bits_b | CARD_BITS[hole0] | CARD_BITS[hole1]
        )
        ties = 0
        for p in range(max_opponents):
            a = deck[missing + 2 * p]
            b = deck[missing + 2 * p + 1]
            v = value7(key + CARD_KEYS[a] + CARD_KEYS[b], bits_b | CARD_BITS[a] | CARD_BITS[b])
            if v > hero:
                break  # hero loses against this many opponents and every larger count
            if v == hero:
                ties += 1
            shares[p] += 1.0 / (ties + 1)
    return state


def equity_by_opponents(
    hero, board="", max_opponents: int = 9, trials: int = 2000, seed: int = 0
) -> np.ndarray:
    """Equity against 1..max_opponents random hands from one shared simulation (float64)."""
    hole, board_cards = check_situation(hero, board, max_opponents)
    padded = np.zeros(5, dtype=np.uint8)
    padded[: len(board_cards)] = board_cards
    shares = np.zeros(max_opponents)
    state = np.uint64(stream_state(seed_state(seed), 0))
    equity_by_opponents_kernel(
        hole[0],
        hole[1],
        padded,
        len(board_cards),
        max_opponents,
        int(trials),
        state,
        shares,
    )
    return shares / trials
