"""The alpha-beta engine: one compiled negamax whose switches make every searcher.

Searchers (``sparring.flagbots.searchers``) are configurations: plain minimax (no pruning),
alpha-beta, and alpha-beta with iterative deepening (root ordered by the previous iteration),
transposition table, killer and history heuristics, aspiration windows and the self-destruct
pruning of the notes; the ``reduced`` searcher adds principal-variation search, late-move
reductions and null-move pruning. Time is kept in the kernels: under a time budget they read a
monotonic clock every ``CLOCK_EVERY`` nodes and stop at the deadline, and an iteration cut short
is discarded (the best move of the last completed one is played). Memory is the transposition
table, sized from ``memory_mb``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np
from numba import int32, int64, njit
from numba.experimental import jitclass

from sparring.flagbots.clock import monotonic_ns
from sparring.flagbots.rules import (
    BOARD,
    COUNT0,
    COUNT1,
    DESTRUCT,
    DRAW,
    FLAG0,
    FLAG1,
    LIMIT,
    MAX_MOVES,
    NORTH,
    ONGOING,
    SIDE,
    SOUTH,
    SOUTH_WINS,
    STATUS,
    UNDO_WIDTH,
    FlagBotsConfig,
    H,
    T,
    W,
    full_hash,
    generate,
    make,
    unmake,
    zobrist_table,
)
from sparring.flagbots.searchers import MAX_PLY, EngineSettings

WIN = 1_000_000
INF = 2_000_000_000
# cfg flags; DEADLINE is a time.monotonic_ns() value (0: none), read every CLOCK_EVERY nodes
ALPHA_BETA, USE_TT, KILLERS, HISTORY, PRUNE, NODE_LIMIT, REDUCE, DEADLINE = range(8)
CLOCK_EVERY = 1024  # ~0.5 ms of search at 2 M nodes/s; a clock read costs ~30 ns
DEADLINE_MARGIN_NS = 5_000_000  # kept back for unwinding the search and returning its move
# Late-move reductions: a move this late in the order (the hash move and the killers come
# first), searched this deep, is searched one ply shallower with a null window first (two plies
# from REDUCE_MORE_FROM_MOVE on, a ply deeper); a move that beats alpha there is searched again.
REDUCE_FROM_MOVE, REDUCE_FROM_DEPTH, REDUCE_MORE_FROM_MOVE = 2, 3, 4
# Null-move pruning: at a node this deep that only has to prove "at least beta" (a null window),
# let the other side move twice; if a search NULL_R plies shallower (one more from depth
# NULL_DEEPER_FROM) still reaches beta, so does some real move (moving is rarely worse than
# passing in FlagBots). Tuned by depth reached and games: benchmarks/search_strength.py.
NULL_FROM_DEPTH, NULL_R, NULL_DEEPER_FROM = 3, 2, 5
# stats
NODES, LEAVES, TT_HITS, CUTOFFS, ABORTED = range(5)
EXACT, LOWER, UPPER = 0, 1, 2


@njit(cache=True)
def evaluate(st):
    """The notes' evaluation from the side to move (terminal positions: +-WIN + moves left)."""
    w, h = st[W], st[H]
    n = w * h
    moves_left = st[LIMIT] - st[T]
    status = st[STATUS]
    me = st[SIDE] + 1
    if status != ONGOING:
        if status == DRAW:
            return 0
        winner = SOUTH if status == SOUTH_WINS else NORTH
        return WIN + moves_left if winner == me else -(WIN + moves_left)
    big = (w + h) * (st[LIMIT] + 1)
    best = np.full((2, 3), big, dtype=np.int64)
    for cell in range(n):
        v = st[BOARD + cell]
        if v != SOUTH and v != NORTH:
            continue
        side = v - 1
        flag = st[FLAG1] if side == 0 else st[FLAG0]
        dist = abs(cell % w - flag % w) + abs(cell // w - flag // w)
        value = dist + moves_left * st[BOARD + n * (1 + side) + cell]
        # keep the three smallest values per side
        if value < best[side, 2]:
            if value < best[side, 1]:
                best[side, 2] = best[side, 1]
                if value < best[side, 0]:
                    best[side, 1] = best[side, 0]
                    best[side, 0] = value
                else:
                    best[side, 1] = value
            else:
                best[side, 2] = value
    penalty0 = 8 * best[0, 0] + 4 * best[0, 1] + 2 * best[0, 2]
    penalty1 = 8 * best[1, 0] + 4 * best[1, 1] + 2 * best[1, 2]
    c0, c1 = st[COUNT0], st[COUNT1]
    material0 = 10 * moves_left * c0 // c1 if c0 > c1 else 0
    material1 = 10 * moves_left * c1 // c0 if c1 > c0 else 0
    score = penalty1 - penalty0 + material0 - material1  # South's view
    return score if me == SOUTH else -score


@njit(cache=True)
def _order(moves, n, scores, tt_move, k1, k2, hist, side, use_killers, use_history):
    for i in range(n):
        m = moves[i]
        if m == tt_move:
            scores[i] = 1 << 40
        elif use_killers and m == k1:
            scores[i] = 1 << 39
        elif use_killers and m == k2:
            scores[i] = (1 << 39) - 1
        elif use_history:
            scores[i] = hist[side, m]
        else:
            scores[i] = 0


@njit(cache=True)
def _pick(moves, scores, start, n):
    """Selection step: bring the best-scored remaining move to ``start`` (stable on ties)."""
    best = start
    for j in range(start + 1, n):
        if scores[j] > scores[best]:
            best = j
    if best != start:
        m, s = moves[best], scores[best]
        for j in range(best, start, -1):
            moves[j] = moves[j - 1]
            scores[j] = scores[j - 1]
        moves[start] = m
        scores[start] = s


_WORKSPACE_SPEC = [
    ("undo", int64[:, :]),
    ("zob", int64[:]),
    ("cfg", int64[:]),
    ("tt_key", int64[:]),
    ("tt_val", int32[:]),
    ("tt_info", int64[:]),
    ("killers", int64[:, :]),
    ("hist", int64[:, :]),
    ("move_buf", int64[:, :]),
    ("score_buf", int64[:, :]),
    ("stats", int64[:]),
    ("null_ply", int64[:]),
]


@jitclass(_WORKSPACE_SPEC)
class SearchWorkspace:
    """Everything a search writes besides the position, built once per ``Engine``: the undo
    stack, Zobrist keys, transposition table, killers, history, per-ply move and score buffers,
    the switches (``cfg``, indexed by ALPHA_BETA ... DEADLINE) and the counters (``stats``,
    NODES ... ABORTED). The kernels take it as one argument (a pointer: cheap to pass down the
    recursion)."""

    def __init__(self, undo, zob, cfg, tt_key, tt_val, tt_info, killers, hist, move_buf,
                 score_buf, stats, null_ply):  # fmt: skip
        self.undo = undo
        self.zob = zob
        self.cfg = cfg
        self.tt_key = tt_key
        self.tt_val = tt_val
        self.tt_info = tt_info
        self.killers = killers
        self.hist = hist
        self.move_buf = move_buf
        self.score_buf = score_buf
        self.stats = stats
        self.null_ply = null_ply  # 1 at a ply reached by a null move (no two in a row)


def is_destruct(move: int) -> bool:
    """Whether ``move`` is a self-destruct (moves are ``cell * 9 + k``, k = 8 the blast)."""
    return move % 9 == DESTRUCT


is_destruct_kernel = njit(cache=True)(is_destruct)


@njit(cache=True)
def _past_deadline(cfg) -> bool:
    """Whether the search's deadline (if any) has passed. Called every CLOCK_EVERY nodes, and
    not inlined: numba's IR inlining of the clock into the recursive search left it unlinked."""
    return cfg[DEADLINE] != 0 and monotonic_ns() >= cfg[DEADLINE]  # type: ignore[call-arg]


@njit(cache=True)
def _leaf_value(st, stats, cfg):
    """What ``negamax`` returns for a child at depth 0, counted the same way, without the call
    (most nodes are leaves: the parent evaluates them in place)."""
    stats[NODES] += 1
    if stats[NODES] >= cfg[NODE_LIMIT] or (
        stats[NODES] % CLOCK_EVERY == 0 and _past_deadline(cfg)
    ):
        stats[ABORTED] = 1
        return 0
    stats[LEAVES] += 1
    return evaluate(st)


# Not cached: numba's on-disk cache of this self-recursive function came back broken in a
# later process (segfaults), so it is compiled once per process.
@njit
def negamax(st, ws, key, depth, ply, alpha, beta):
    """Negamax value of the position to ``depth`` plies (alpha-beta when cfg says so)."""
    stats, cfg = ws.stats, ws.cfg
    stats[NODES] += 1
    if stats[NODES] >= cfg[NODE_LIMIT] or (
        stats[NODES] % CLOCK_EVERY == 0 and _past_deadline(cfg)
    ):
        stats[ABORTED] = 1
        return 0
    if depth == 0 or st[STATUS] != ONGOING:
        stats[LEAVES] += 1
        return evaluate(st)
    use_ab = cfg[ALPHA_BETA] != 0
    reduce = use_ab and cfg[REDUCE] != 0
    alpha0 = alpha
    tt_move = -1
    slot = 0
    if cfg[USE_TT]:
        slot = key & (ws.tt_key.shape[0] - 1)
        if ws.tt_key[slot] == key:
            info = ws.tt_info[slot]
            stored_depth, flag, tt_move = info & 0xFF, (info >> 8) & 0x3, info >> 10
            if stored_depth >= depth:
                value = ws.tt_val[slot]
                if flag == EXACT:
                    stats[TT_HITS] += 1
                    return value
                if use_ab and flag == LOWER and value >= beta:
                    stats[TT_HITS] += 1
                    return value
                if use_ab and flag == UPPER and value <= alpha:
                    stats[TT_HITS] += 1
                    return value
    null_move = reduce and depth >= NULL_FROM_DEPTH and beta - alpha == 1
    if null_move and ws.null_ply[ply] == 0 and abs(beta) < WIN // 2:
        side_key = ws.zob[2 * st[W] * st[H]]
        st[SIDE] = 1 - st[SIDE]
        ws.null_ply[ply + 1] = 1
        r = NULL_R + 1 if depth >= NULL_DEEPER_FROM else NULL_R
        value = -negamax(st, ws, key ^ side_key, depth - 1 - r, ply + 1, -beta, 1 - beta)
        ws.null_ply[ply + 1] = 0
        st[SIDE] = 1 - st[SIDE]
        if stats[ABORTED]:
            return 0
        if value >= beta:
            return beta
    moves = ws.move_buf[ply]
    scores = ws.score_buf[ply]
    killers, hist, undo, zob = ws.killers, ws.hist, ws.undo, ws.zob
    n = generate(st, moves, cfg[PRUNE] != 0)
    side = st[SIDE]
    _order(
        moves,
        n,
        scores,
        tt_move,
        killers[ply, 0],
        killers[ply, 1],
        hist,
        side,
        cfg[KILLERS] != 0,
        cfg[HISTORY] != 0,
    )
    best = -INF
    best_move = moves[0]
    for i in range(n):
        _pick(moves, scores, i, n)
        m = moves[i]
        key2 = make(st, undo, zob, key, m)
        if depth == 1:
            value = -_leaf_value(st, stats, cfg)
        elif reduce and i > 0:
            value = _scout(st, ws, key2, depth, ply, alpha, beta, i, m)
        else:
            value = -negamax(st, ws, key2, depth - 1, ply + 1, -beta, -alpha)
        unmake(st, undo, zob, key2)
        if stats[ABORTED]:
            return 0
        if value > best:
            best = value
            best_move = m
        if use_ab:
            if value > alpha:
                alpha = value
            if alpha >= beta:
                stats[CUTOFFS] += 1
                if not is_destruct_kernel(m) and killers[ply, 0] != m:
                    killers[ply, 1] = killers[ply, 0]
                    killers[ply, 0] = m
                hist[side, m] += depth * depth
                break
    if cfg[USE_TT]:
        flag = EXACT
        if use_ab and best <= alpha0:
            flag = UPPER
        elif use_ab and best >= beta:
            flag = LOWER
        ws.tt_key[slot] = key
        ws.tt_val[slot] = best
        ws.tt_info[slot] = depth | (flag << 8) | (best_move << 10)
    return best


@njit
def _scout(st, ws, key, depth, ply, alpha, beta, i, m):
    """The value of move ``m`` (the ``i``-th tried, already made) by principal-variation
    search: a null window around ``alpha`` proves it no better than the moves before it, a
    late move that is not a self-destruct first searched shallower; only a move that beats
    ``alpha`` is searched again, to full depth, then with the full window."""
    r = 0
    if depth >= REDUCE_FROM_DEPTH and i >= REDUCE_FROM_MOVE and not is_destruct_kernel(m):
        r = 1 if i < REDUCE_MORE_FROM_MOVE or depth < REDUCE_FROM_DEPTH + 1 else 2
    if r:
        value = -negamax(st, ws, key, depth - 1 - r, ply + 1, -alpha - 1, -alpha)
        if value <= alpha or ws.stats[ABORTED]:
            return value
    value = -negamax(st, ws, key, depth - 1, ply + 1, -alpha - 1, -alpha)
    if alpha < value < beta and not ws.stats[ABORTED]:
        value = -negamax(st, ws, key, depth - 1, ply + 1, -beta, -alpha)
    return value


@njit
def search_root(st, ws, key, depth, alpha, beta, root_moves, root_scores, n):
    """Search the root moves in the given order; fills root_scores; returns the best index."""
    cfg, stats = ws.cfg, ws.stats
    best = -INF
    best_i = 0
    a = alpha
    for i in range(n):
        key2 = make(st, ws.undo, ws.zob, key, root_moves[i])
        value = -negamax(st, ws, key2, depth - 1, 1, -beta, -a)
        unmake(st, ws.undo, ws.zob, key2)
        if stats[ABORTED]:
            return best_i
        root_scores[i] = value
        if value > best:
            best = value
            best_i = i
        if cfg[ALPHA_BETA] and value > a:
            a = value
        if cfg[ALPHA_BETA] and a >= beta:
            break
    return best_i


@dataclass
class SearchResult:
    move: int
    score: int
    depth: int  # last completed depth
    nodes: int
    leaves: int
    tt_hits: int
    cutoffs: int
    seconds: float
    per_depth_nodes: list[int] = field(default_factory=list)

    @property
    def nps(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0

    @property
    def branching(self) -> float:
        """Effective branching factor: nodes of the last iteration over the one before."""
        if len(self.per_depth_nodes) < 2 or self.per_depth_nodes[-2] == 0:
            return float("nan")
        return self.per_depth_nodes[-1] / self.per_depth_nodes[-2]


class Engine:
    """A searcher bound to a map: ``search(state)`` returns a ``SearchResult``."""

    def __init__(self, cfg: FlagBotsConfig, search: EngineSettings) -> None:
        self.map = cfg
        self.cfg = search
        self.zob = zobrist_table(cfg)
        entry_bytes = 8 + 4 + 8
        entries = 1
        while entries * 2 * entry_bytes <= search.memory_mb * 1024 * 1024 and entries < 1 << 26:
            entries *= 2
        size = entries if search.tt else 1
        self.ws = SearchWorkspace(
            undo=np.zeros((cfg.limit + 1, UNDO_WIDTH), np.int64),
            zob=self.zob,
            cfg=np.zeros(8, np.int64),
            tt_key=np.zeros(size, np.int64),
            tt_val=np.zeros(size, np.int32),
            tt_info=np.zeros(size, np.int64),
            killers=np.full((MAX_PLY, 2), -1, np.int64),
            hist=np.zeros((2, cfg.width * cfg.height * 9), np.int64),
            move_buf=np.zeros((MAX_PLY, MAX_MOVES), np.int64),
            score_buf=np.zeros((MAX_PLY, MAX_MOVES), np.int64),
            stats=np.zeros(5, np.int64),
            null_ply=np.zeros(MAX_PLY + 1, np.int64),
        )
        _warm_up(self)

    @property
    def memory_bytes(self) -> int:
        ws = self.ws
        arrays = (ws.undo, ws.cfg, ws.tt_key, ws.tt_val, ws.tt_info, ws.killers, ws.hist,
                  ws.move_buf, ws.score_buf, ws.stats)  # fmt: skip
        return sum(a.nbytes for a in arrays)

    def search(
        self,
        state: np.ndarray,
        depth: int | None = None,
        time_s: float | None = -1.0,
        node_limit: int | None = None,
    ) -> SearchResult:
        """Best move for the side to move. ``depth`` caps the depth (default: the config's);
        ``time_s`` the wall time (default: the config's; None = unlimited)."""
        c = self.cfg
        budget = c.time_s if time_s == -1.0 else time_s
        max_depth = depth if depth is not None else c.max_depth
        st = state.copy()
        key = full_hash(st, self.zob)
        root = np.zeros(MAX_MOVES, np.int64)
        n = generate(st, root, c.prune_destructs)
        if n == 0:
            raise ValueError("the game is over: no legal moves")
        scores = np.zeros(MAX_MOVES, np.int64)
        ws = self.ws
        flags = ws.cfg
        flags[:] = [
            c.alpha_beta,
            c.tt,
            c.killers,
            c.history,
            c.prune_destructs,
            node_limit or 2**62,
            c.reductions,
            0,  # the deadline: set below when there is a time budget
        ]
        ws.killers[:] = -1
        ws.hist[:] //= 8  # age the history between searches
        start = time.perf_counter()
        if budget is not None:  # the kernels stop at it (an iteration cut short is discarded)
            flags[DEADLINE] = time.monotonic_ns() + max(1, int(budget * 1e9) - DEADLINE_MARGIN_NS)
        best_move, best_score, done = int(root[0]), 0, 0
        total = {"nodes": 0, "leaves": 0, "tt": 0, "cut": 0}
        per_depth: list[int] = []
        # Under a time budget every searcher deepens step by step (a single deep iteration
        # could not be stopped in time); only `iterative` searchers reuse the ordering.
        first = 1 if c.iterative or budget is not None else max_depth
        for d in range(first, max_depth + 1):
            stats = ws.stats
            stats[:] = 0
            if budget is not None and time.perf_counter() - start >= budget:
                break
            alpha, beta = -INF, INF
            if c.aspiration and d > first and abs(best_score) < WIN // 2:
                alpha, beta = best_score - c.aspiration, best_score + c.aspiration
            while True:
                scores[:n] = -INF
                i = search_root(st, ws, key, d, alpha, beta, root, scores, n)
                value = int(scores[i])
                if stats[ABORTED] or (alpha == -INF and beta == INF):
                    break
                if alpha < value < beta:
                    break
                alpha, beta = -INF, INF  # the window failed: search again, fully
            for k, name in (
                (NODES, "nodes"),
                (LEAVES, "leaves"),
                (TT_HITS, "tt"),
                (CUTOFFS, "cut"),
            ):
                total[name] += int(stats[k])
            if stats[ABORTED]:
                break
            per_depth.append(int(stats[NODES]))
            best_move, best_score, done = int(root[i]), value, d
            if c.iterative:
                # next iteration: best move first, then by this iteration's scores
                # (the stable sort keeps the previous order among equal scores)
                order = np.argsort(-scores[:n], kind="stable")
                root[:n] = root[:n][order]
                scores[:n] = scores[:n][order]
            if abs(best_score) >= WIN // 2:
                break  # a forced result: deeper search cannot change it
        return SearchResult(
            best_move,
            best_score,
            done,
            total["nodes"],
            total["leaves"],
            total["tt"],
            total["cut"],
            time.perf_counter() - start,
            per_depth,
        )


_WARM: set[bool] = set()


def _warm_up(engine: Engine) -> None:
    """Compile the search kernels once per process (a tiny search), so that time budgets are
    not spent compiling."""
    if engine.cfg.tt in _WARM:
        return
    _WARM.add(engine.cfg.tt)
    from sparring.flagbots.rules import initial

    probe = replace(engine.cfg, aspiration=1, iterative=True)
    saved, engine.cfg = engine.cfg, probe
    try:
        engine.search(initial(engine.map), depth=3, time_s=None)
    finally:
        engine.cfg = saved
        engine.ws.tt_key[:] = 0
        engine.ws.hist[:] = 0
