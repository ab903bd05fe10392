"""The compiled Mus engine: whole matches between four synthetic players in one numba kernel.

``play_kernel`` plays one match of the default rules (``MusConfig()``: 8 reyes, 40 tantos, the
first team to win 2 juegos wins) between four ``SyntheticPlayer``s and writes the decision log
as integer rows. It is the Python engine (``engine.py``, ``lance.py``, ``scoring.py``) and the
player (``players.SyntheticPlayer``) rewritten as one loop, step for step, so that it makes
**the same random draws in the same order** from the same numpy ``Generator``s (numba draws
from a ``Generator`` through its own bit generator, so the objects advance as in Python): the
same seeds give the same log, record for record (``tests/mus/test_kernel.py`` plays both).

Only what the Python engine computes for these players is here: no events, no observations.
Lance keys are integers (a larger key wins) and the percentiles the players read come from a
table indexed by the hand's sorted ranks (``RANK_CODES``), filled from ``mid_percentile``.

Codes: lances ``RECORD_LANCES`` (0 = a mus decision), actions ``ACTIONS``; a row's columns are
``COLUMNS``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sparring.mus.cards import FACES, effective_rank, point_value
from sparring.mus.engine import DiscardOrder, MusConfig, RejectedRaise, Reshuffle, ResponseModel
from sparring.mus.keys import JUEGO_ORDER as JUEGO_KEYS
from sparring.mus.players import RATE_FIELDS, WEAK

RECORD_LANCES = ("mus", "grande", "chica", "pares", "juego", "punto")
ACTIONS = ("mus", "no_mus", "paso", "envido", "ordago", "quiero", "no_quiero", "subir")
COLUMNS = (
    "hand",
    "lance",
    "seat",
    "distance",
    "lance_mano",
    "score_own",
    "score_other",
    "juegos_own",
    "juegos_other",
    "mus_rounds",
    "pending",
    "accepted",
    "stake",
    "raised",
    "is_ordago",
    "action",
    "amount",
    "final",
    "rank_code",  # the deciding hand's sorted ranks, base 13: its row of the percentile table
    *(f"own_{i}" for i in range(4)),  # faces, in hand order
    *(f"all_{i}" for i in range(16)),  # the four hands shown at the end, seat by seat
)
COL = {name: i for i, name in enumerate(COLUMNS)}
# The columns the kernel writes, by name (module ints: constants to numba)
C_HAND = COL["hand"]
C_LANCE = COL["lance"]
C_SEAT = COL["seat"]
C_DISTANCE = COL["distance"]
C_LANCE_MANO = COL["lance_mano"]
C_SCORE_OWN = COL["score_own"]
C_SCORE_OTHER = COL["score_other"]
C_JUEGOS_OWN = COL["juegos_own"]
C_JUEGOS_OTHER = COL["juegos_other"]
C_MUS_ROUNDS = COL["mus_rounds"]
C_PENDING = COL["pending"]
C_ACCEPTED = COL["accepted"]
C_STAKE = COL["stake"]
C_RAISED = COL["raised"]
C_IS_ORDAGO = COL["is_ordago"]
C_ACTION = COL["action"]
C_AMOUNT = COL["amount"]
C_FINAL = COL["final"]
C_RANK_CODE = COL["rank_code"]
C_OWN, C_ALL = COL["own_0"], COL["all_0"]
RANK_CODES = 13**4
# Profile fields in the kernel's parameter array, in this order, and where each is
PROFILE_FIELDS = (*RATE_FIELDS, "bet_size")
P_AGGRESSION, P_BLUFF, P_ACCEPTANCE, P_RISK, P_RAISE, P_ORDAGO, P_MUS, P_BET_SIZE = (
    PROFILE_FIELDS.index(name)
    for name in ("aggression", "bluff_frequency", "acceptance_rate", "risk_tolerance",
                 "raise_rate", "ordago_rate", "mus_rate", "bet_size")
)  # fmt: skip

MUS, NO_MUS, PASO, ENVIDO, ORDAGO, QUIERO, NO_QUIERO, SUBIR = range(8)
GRANDE, CHICA, PARES, JUEGO, PUNTO = 1, 2, 3, 4, 5
OPEN, PENDING, EN_PASO, QUERIDO, NO_QUERIDO, ORDAGO_QUERIDO, SIN_ENVITE, NO_JUGADO = range(8)

# The rules the kernel plays, and only these: mano-first discards, every discard reshuffled, a
# refused raise pays the previous stake, sequential answers, the juego ends the moment a team
# reaches the target, no mus corrido, no real 31, uncapped bets; one vaca wins the match.
# ``synthetic_play.compiled_ok`` sends a match here only when its config equals RULES.
TARGET, JUEGOS_PER_VACA, MAX_MUS_ROUNDS, MIN_ENVIDO, MAX_BET = 40, 3, 20, 2, 40
RULES = MusConfig(ocho_reyes=True, target=TARGET, juegos_per_vaca=JUEGOS_PER_VACA,
                  vacas_per_match=1, discard_order=DiscardOrder.mano_first,
                  reshuffle=Reshuffle.all_discards, rejected_raise=RejectedRaise.previous_stake,
                  min_envido=MIN_ENVIDO, min_raise=2, treinta_y_una_real=False,
                  end_on_target_immediately=True, first_hand_mus_corrido=False,
                  response_model=ResponseModel.sequential, max_mus_rounds=MAX_MUS_ROUNDS,
                  cap_bets=False, reveal_at_end=True, max_bet=MAX_BET)  # fmt: skip
JUEGOS_FOR_VACA = -(-JUEGOS_PER_VACA // 2)  # a majority of the vaca's juegos
RAISE = 2  # a synthetic player's subir (SyntheticPlayer.act)

FACE_OF_CARD = np.array([FACES[c % 10] for c in range(40)], dtype=np.int64)
RANK_OF_CARD = np.array([effective_rank(FACES[c % 10]) for c in range(40)], dtype=np.int64)
POINTS_OF_CARD = np.array([point_value(FACES[c % 10]) for c in range(40)], dtype=np.int64)
JUEGO_ORDER = np.full(41, -1, dtype=np.int64)  # point total -> juego key (31 best), -1 none
for _total, _order in JUEGO_KEYS.items():
    JUEGO_ORDER[_total] = _order
_CAPACITY = 512  # decision rows to start with (a match has ~200; the array grows if needed)


@njit(cache=True, inline="always")
def _sorted4(a0: int, a1: int, a2: int, a3: int) -> tuple[int, int, int, int]:
    """Four ints in ascending order (a sorting network)."""
    if a0 > a1:
        a0, a1 = a1, a0
    if a2 > a3:
        a2, a3 = a3, a2
    if a0 > a2:
        a0, a2 = a2, a0
    if a1 > a3:
        a1, a3 = a3, a1
    if a1 > a2:
        a1, a2 = a2, a1
    return a0, a1, a2, a3


@njit(cache=True)
def _rank_code(hand: np.ndarray, rank_of_card: np.ndarray) -> int:
    """The hand's sorted ranks (ascending) as a base-13 number."""
    r0, r1, r2, r3 = _sorted4(
        rank_of_card[hand[0]], rank_of_card[hand[1]], rank_of_card[hand[2]], rank_of_card[hand[3]]
    )
    return ((r0 * 13 + r1) * 13 + r2) * 13 + r3


@njit(cache=True)
def _lance_keys(hand: np.ndarray, rank_of_card, points_of_card, juego_order) -> tuple:
    """(grande, chica, pares, juego, punto) keys of one hand, then its point total; a larger
    key wins, -1 = not taking part (keys.py's tuples, as numbers that order the same way)."""
    r0, r1, r2, r3 = _sorted4(
        rank_of_card[hand[0]], rank_of_card[hand[1]], rank_of_card[hand[2]], rank_of_card[hand[3]]
    )
    grande = ((r3 * 13 + r2) * 13 + r1) * 13 + r0
    chica = RANK_CODES - 1 - (((r0 * 13 + r1) * 13 + r2) * 13 + r3)
    # pares: ranks ascending, so equal ranks sit side by side
    if r0 == r3:
        pares = (3 * 13 + r0) * 13 + r0  # duples of four alike
    elif r0 == r2 or r1 == r3:
        pares = (2 * 13 + r1) * 13  # medias (r1 is in the triple either way)
    elif r0 == r1 and r2 == r3:
        pares = (3 * 13 + r2) * 13 + r0  # duples: higher pair first
    elif r0 == r1:
        pares = (1 * 13 + r0) * 13
    elif r1 == r2:
        pares = (1 * 13 + r1) * 13
    elif r2 == r3:
        pares = (1 * 13 + r2) * 13
    else:
        pares = -1
    total = (
        points_of_card[hand[0]]
        + points_of_card[hand[1]]
        + points_of_card[hand[2]]
        + points_of_card[hand[3]]
    )
    juego = juego_order[total]
    punto = total if total <= 30 else -1
    return grande, chica, pares, juego, punto, total


@njit(cache=True, inline="always")
def _card_winner(keys: np.ndarray, lance: int | np.integer, mano: int) -> int:
    """The seat with the best key in ``lance``; ties to the one nearest the mano; -1 none."""
    best, best_key = -1, -1
    for d in range(4):
        seat = (mano + d) % 4
        k = keys[lance, seat]
        if k >= 0 and (best < 0 or k > best_key):
            best, best_key = seat, k
    return best


@njit(cache=True, inline="always")
def _split(rate: float, weak_share: float, weak: bool) -> float:
    """P(act | hand class) so that P(act) = rate and P(weak | act) = weak_share
    (``SyntheticPlayer._split``)."""
    p = rate * weak_share / WEAK if weak else rate * (1 - weak_share) / (1 - WEAK)
    return min(1.0, p)


@njit(cache=True)
def _grow(rows: np.ndarray) -> np.ndarray:
    bigger = np.zeros((rows.shape[0] * 2, rows.shape[1]), dtype=rows.dtype)
    bigger[: rows.shape[0]] = rows
    return bigger


@njit(cache=True)
def play_kernel(
    rng,
    player_rngs,
    profiles: np.ndarray,
    shift_after: np.ndarray,
    hands_seen: np.ndarray,
    pct: np.ndarray,
    face_of_card: np.ndarray,
    rank_of_card: np.ndarray,
    points_of_card: np.ndarray,
    juego_order: np.ndarray,
) -> tuple[np.ndarray, int, int, int]:
    """One match; returns (decision rows, rows used, hands played, winning team).

    ``rng`` is the match's Generator (``MusGame.new_initial_state``'s), ``player_rngs`` the
    four players' (a tuple, seat order). ``profiles[seat, which, slot, field]``: ``which`` 0
    before the shift and 1 after it, ``slot`` the ``RECORD_LANCES`` index, ``field`` as
    ``PROFILE_FIELDS``. ``shift_after[seat]`` is -1 for never; ``hands_seen[seat]`` is read
    and counted up (``on_hand_end``). ``pct[lance - 1, rank_code]`` is ``mid_percentile``."""
    rows = np.zeros((_CAPACITY, len(COLUMNS)), dtype=np.int32)
    n = 0
    hands = np.zeros((4, 4), dtype=np.int64)
    shown = np.zeros((4, 4), dtype=np.int64)  # the hands when the lances start
    stock = np.zeros(40, dtype=np.int64)
    pile = np.zeros(40, dtype=np.int64)
    keep = np.zeros(4, dtype=np.int64)
    codes = np.zeros(4, dtype=np.int64)
    keys = np.full((6, 4), -1, dtype=np.int64)  # [lance, seat]
    totals = np.zeros(4, dtype=np.int64)
    participants = np.zeros(4, dtype=np.int64)
    queue = np.zeros(4, dtype=np.int64)
    status = np.full(6, NO_JUGADO, dtype=np.int64)
    stake = np.zeros(6, dtype=np.int64)
    winner_team = np.full(6, -1, dtype=np.int64)
    scores = np.zeros(2, dtype=np.int64)
    juegos = np.zeros(2, dtype=np.int64)
    lances = np.zeros(4, dtype=np.int64)

    dealer = rng.integers(0, 4)
    hand_number = 0
    while True:
        # ---- the deal (MusState._deal)
        mano = (dealer + 1) % 4
        deck = rng.permutation(40)
        for i in range(16):
            hands[(mano + i % 4) % 4, i // 4] = deck[i]
        stock[:24] = deck[16:]
        stock_head, stock_len = 0, 24
        pile_len = 0
        hand_number += 1
        hand_first_row = n

        # ---- mus decisions and discards, until someone cuts (or the safety cap)
        mus_rounds = 0
        while True:
            cut = False
            for d in range(4):
                seat = (mano + d) % 4
                which = 1 if shift_after[seat] >= 0 and hands_seen[seat] >= shift_after[seat] else 0
                u = player_rngs[seat].random()
                action = MUS if u < profiles[seat, which, 0, P_MUS] else NO_MUS
                if n == rows.shape[0]:
                    rows = _grow(rows)
                t = seat % 2
                _row_start(rows, n, hand_number, 0, seat, d, d == 0, scores[t], scores[1 - t],
                           juegos[t], juegos[1 - t], mus_rounds)  # fmt: skip
                rows[n, C_ACTION] = action
                rows[n, C_FINAL] = 1
                _row_hand(rows, n, hands[seat], face_of_card, rank_of_card)
                n += 1
                if mus_rounds >= MAX_MUS_ROUNDS or action == NO_MUS:
                    cut = True
                    break
            if cut:
                break
            for d in range(4):  # discards, the mano first (keep_kings_and_pairs)
                seat = (mano + d) % 4
                player_rngs[seat].random()
                mask = 0
                for i in range(4):
                    r = rank_of_card[hands[seat, i]]
                    alike = 0
                    for j in range(4):
                        alike += rank_of_card[hands[seat, j]] == r
                    if r < 10 and alike == 1:
                        mask |= 1 << i
                if mask == 0:
                    low = 0
                    for i in range(1, 4):
                        if rank_of_card[hands[seat, i]] < rank_of_card[hands[seat, low]]:
                            low = i
                    mask = 1 << low
                kept = 0
                for i in range(4):
                    if mask >> i & 1:
                        pile[pile_len] = hands[seat, i]
                        pile_len += 1
                    else:
                        keep[kept] = hands[seat, i]
                        kept += 1
                hands[seat, :kept] = keep[:kept]
                hands[seat, kept:] = -1
            for d in range(4):  # the redraw, in the same order
                seat = (mano + d) % 4
                for i in range(4):
                    if hands[seat, i] >= 0:
                        continue
                    if stock_len == 0:  # reshuffle the discards since the last reshuffle
                        shuffled = rng.permutation(pile[:pile_len])
                        stock[:pile_len] = shuffled
                        stock_head, stock_len, pile_len = 0, pile_len, 0
                    hands[seat, i] = stock[stock_head]
                    stock_head += 1
                    stock_len -= 1
            mus_rounds += 1

        # ---- the lances (MusState._start_lances, _next_lance, _bet)
        anyone_juego = False
        for seat in range(4):
            shown[seat] = hands[seat]
            codes[seat] = _rank_code(hands[seat], rank_of_card)
            g, c, p, j, pu, total = _lance_keys(
                hands[seat], rank_of_card, points_of_card, juego_order
            )
            keys[GRANDE, seat] = g
            keys[CHICA, seat] = c
            keys[PARES, seat] = p
            keys[JUEGO, seat] = j
            keys[PUNTO, seat] = pu
            totals[seat] = total
            anyone_juego |= j >= 0
        lances[0], lances[1], lances[2] = GRANDE, CHICA, PARES
        lances[3] = JUEGO if anyone_juego else PUNTO
        status[:] = NO_JUGADO
        ended_by = -1  # the team that won the juego during the betting
        for lance in lances:
            count = 0
            teams = 0
            for d in range(4):
                seat = (mano + d) % 4
                if keys[lance, seat] >= 0:
                    participants[count] = seat
                    count += 1
                    teams |= 1 << (seat % 2)
            stake[lance] = 0
            winner_team[lance] = -1
            if count == 0:
                status[lance] = NO_JUGADO
                continue
            if teams != 3:
                status[lance] = SIN_ENVITE
                winner_team[lance] = participants[0] % 2
                continue
            status[lance] = OPEN
            queue[:count] = participants[:count]
            q_head, q_len = 0, count
            accepted, pending, raised, is_ordago, proposer = 0, 0, False, False, -1
            while status[lance] == OPEN or status[lance] == PENDING:
                seat = queue[q_head]
                which = 1 if shift_after[seat] >= 0 and hands_seen[seat] >= shift_after[seat] else 0
                prof = profiles[seat, which, lance]
                rngp = player_rngs[seat]
                u = rngp.random()
                weak = pct[lance - 1, codes[seat]] < WEAK
                o = prof[P_ORDAGO]
                amount = 0
                if status[lance] == OPEN:
                    if u < o:
                        action = ORDAGO
                    else:
                        bet = _split(max(prof[P_AGGRESSION] - o, 0.0), prof[P_BLUFF], weak)
                        if rngp.random() * (1 - o) < bet:
                            action, amount = ENVIDO, int(prof[P_BET_SIZE])
                        else:
                            action = PASO
                else:
                    if not is_ordago and u < o:
                        action = ORDAGO
                    else:
                        taken = 0.0 if is_ordago else o
                        if not is_ordago and u < taken + prof[P_RAISE]:
                            action, amount = SUBIR, RAISE
                        else:
                            taken += 0.0 if is_ordago else prof[P_RAISE]
                            accept = _split(prof[P_ACCEPTANCE], prof[P_RISK], weak)
                            if rngp.random() * max(1 - taken, 1e-9) < accept:
                                action = QUIERO
                            else:
                                action = NO_QUIERO
                if n == rows.shape[0]:
                    rows = _grow(rows)
                t = seat % 2
                _row_start(rows, n, hand_number, lance, seat, (seat - mano) % 4,
                           participants[0] == seat, scores[t], scores[1 - t], juegos[t],
                           juegos[1 - t], mus_rounds)  # fmt: skip
                rows[n, C_PENDING] = status[lance] == PENDING
                rows[n, C_ACCEPTED] = accepted
                rows[n, C_STAKE] = pending
                rows[n, C_RAISED] = raised
                rows[n, C_IS_ORDAGO] = is_ordago
                rows[n, C_ACTION] = action
                rows[n, C_AMOUNT] = amount
                rows[n, C_FINAL] = 1
                _row_hand(rows, n, hands[seat], face_of_card, rank_of_card)
                n += 1
                # ---- Lance._act (sequential answers)
                paid_team, paid, proposed = -1, 0, False
                if status[lance] == OPEN:
                    if action == PASO:
                        q_head += 1
                        q_len -= 1
                        if q_len == 0:
                            status[lance] = EN_PASO
                    else:
                        accepted, raised, proposed = 0, False, True
                        if action == ENVIDO:
                            pending = amount
                        else:
                            is_ordago = True
                elif action == QUIERO:
                    status[lance] = ORDAGO_QUERIDO if is_ordago else QUERIDO
                elif action == NO_QUIERO:
                    q_head += 1
                    q_len -= 1
                    if q_len == 0:  # refused: paid at once
                        status[lance] = NO_QUERIDO
                        winner_team[lance] = proposer % 2
                        paid_team, paid = proposer % 2, accepted if raised else 1
                    else:
                        rows[n - 1, C_FINAL] = 0  # not final: the partner still answers
                else:  # subir, or an órdago answering a bet
                    accepted, raised, proposed = pending, True, True
                    if action == SUBIR:
                        pending += amount
                    else:
                        is_ordago = True
                if proposed:  # the rivals after the bettor answer (Lance._propose)
                    proposer = seat
                    q_head, q_len = 0, 0
                    for d in range(1, 4):
                        other = (seat + d) % 4
                        if other % 2 != seat % 2 and keys[lance, other] >= 0:
                            queue[q_len] = other
                            q_len += 1
                    status[lance] = PENDING
                if paid_team >= 0:
                    scores[paid_team] += paid
                    if scores[paid_team] >= TARGET:
                        ended_by = paid_team
                        break
                if status[lance] == ORDAGO_QUERIDO:
                    ended_by = _card_winner(keys, lance, mano) % 2
                    break
            stake[lance] = pending
            if ended_by >= 0:
                break

        # ---- the count (scoring.count_hand) when the betting did not end the juego
        winner = ended_by
        if winner < 0:
            for lance in lances:
                st = status[lance]
                if st == NO_JUGADO:
                    continue
                team_w, tantos = -1, 0
                if lance == GRANDE or lance == CHICA:
                    team_w = _card_winner(keys, lance, mano) % 2
                    if st == EN_PASO:
                        tantos = 1
                    elif st == QUERIDO:
                        tantos = stake[lance]
                elif lance == PARES or lance == JUEGO:
                    if st == NO_QUERIDO or st == SIN_ENVITE:
                        team_w = winner_team[lance]
                    else:
                        team_w = _card_winner(keys, lance, mano) % 2
                        tantos = stake[lance] if st == QUERIDO else 0
                    for seat in (team_w, team_w + 2):  # the team's pares or juego tantos
                        if lance == PARES and keys[PARES, seat] >= 0:
                            tantos += keys[PARES, seat] // 169
                        elif lance == JUEGO and keys[JUEGO, seat] >= 0:
                            tantos += 3 if totals[seat] == 31 else 2
                else:  # punto
                    if st == NO_QUERIDO:
                        team_w, tantos = winner_team[lance], 1
                    else:
                        team_w = _card_winner(keys, lance, mano) % 2
                        tantos = (stake[lance] if st == QUERIDO else 0) + 1
                if tantos == 0:
                    continue
                scores[team_w] += tantos
                if scores[team_w] >= TARGET:
                    winner = team_w
                    break

        # ---- the hand is over: every record of it sees the four hands; players count it
        for r in range(hand_first_row, n):
            for seat in range(4):
                for i in range(4):
                    rows[r, C_ALL + 4 * seat + i] = face_of_card[shown[seat, i]]
        for seat in range(4):
            hands_seen[seat] += 1
        if winner >= 0:  # MusState._win_juego (one vaca wins the match)
            juegos[winner] += 1
            scores[:] = 0
            if juegos[winner] >= JUEGOS_FOR_VACA:
                return rows, n, hand_number, winner
        dealer = mano


@njit(cache=True, inline="always")
def _row_start(
    rows, n, hand, lance, seat, distance, lance_mano, own, other, j_own, j_other, mus_rounds
):
    rows[n, C_HAND] = hand
    rows[n, C_LANCE] = lance
    rows[n, C_SEAT] = seat
    rows[n, C_DISTANCE] = distance
    rows[n, C_LANCE_MANO] = lance_mano
    rows[n, C_SCORE_OWN] = own
    rows[n, C_SCORE_OTHER] = other
    rows[n, C_JUEGOS_OWN] = j_own
    rows[n, C_JUEGOS_OTHER] = j_other
    rows[n, C_MUS_ROUNDS] = mus_rounds


@njit(cache=True, inline="always")
def _row_hand(rows, n, hand, face_of_card, rank_of_card) -> None:
    rows[n, C_RANK_CODE] = _rank_code(hand, rank_of_card)
    for i in range(4):
        rows[n, C_OWN + i] = face_of_card[hand[i]]
