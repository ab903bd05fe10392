"""The search engine: exactness against minimax, the minimal tree, budgets."""

import math
import time

import numpy as np
import pytest

from sparring.flagbots.alphabeta import UniformTree, negamax
from sparring.flagbots.engine import Engine
from sparring.flagbots.game import Position
from sparring.flagbots.rules import FlagBotsConfig
from sparring.flagbots.searchers import searcher


def random_positions(count, plies, seed):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        pos = Position()
        for _ in range(plies):
            pos.apply_action(int(rng.choice(pos.legal_actions())))
            if pos.is_terminal():
                break
        if not pos.is_terminal():
            out.append(pos.st.copy())
    return out


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_alpha_beta_and_enhancements_equal_minimax(depth):
    cfg = FlagBotsConfig()
    for st in random_positions(4, 10, seed=depth):
        values = {}
        for kind in ("minimax", "alphabeta", "id", "id_tt", "id_tt_kh"):
            r = Engine(cfg, searcher(kind)).search(st, depth=depth, time_s=None)
            values[kind] = r.score
        assert len(set(values.values())) == 1, values


@pytest.mark.parametrize("depth", [1, 2])
def test_principal_variation_search_is_exact_where_nothing_is_reduced(depth):
    """``reduced`` searches every move after the first with a null window first and searches
    again only what beats it: exact, like alpha-beta. Reductions and the null move start at
    depth 3, so at depths 1 and 2 its values are alpha-beta's on every position."""
    cfg = FlagBotsConfig()
    for st in random_positions(6, 10, seed=20 + depth):
        reduced = Engine(cfg, searcher("reduced")).search(st, depth=depth, time_s=None)
        exact = Engine(cfg, searcher("alphabeta")).search(st, depth=depth, time_s=None)
        assert reduced.score == exact.score


def test_reductions_and_the_null_move_search_fewer_nodes_to_the_same_depth():
    """What ``reduced`` is for: the same depth for fewer nodes than ``full`` (the same engine
    without them), on every position here; its moves stay legal."""
    cfg = FlagBotsConfig()
    for st in random_positions(4, 8, seed=31):
        full = Engine(cfg, searcher("full")).search(st, depth=6, time_s=None)
        reduced = Engine(cfg, searcher("reduced")).search(st, depth=6, time_s=None)
        assert reduced.depth == full.depth == 6
        assert reduced.nodes < full.nodes, (reduced.nodes, full.nodes)
        pos = Position(cfg)
        pos.st[:] = st
        assert reduced.move in pos.legal_actions()


def test_pruning_changes_only_harmless_blasts_value():
    # With the pruning on the value may only differ when a harmless blast was best: compare
    # against a search whose move list is the pruned one (same value on these positions).
    cfg = FlagBotsConfig()
    for st in random_positions(3, 14, seed=9):
        on = Engine(cfg, searcher("id_tt_kh", prune_destructs=True)).search(st, 2, None)
        off = Engine(cfg, searcher("id_tt_kh")).search(st, 2, None)
        assert on.score <= off.score  # a subset of moves can only lose value
        assert on.nodes <= off.nodes


@pytest.mark.parametrize(("b", "d"), [(2, 5), (3, 4), (4, 3), (5, 4), (8, 3)])
def test_minimal_tree_on_uniform_trees_with_perfect_ordering(b, d):
    counter = [0]
    value = negamax(UniformTree(b, d), d, counter=counter)
    assert counter[0] == b ** math.ceil(d / 2) + b ** (d // 2) - 1
    full = [0]
    assert negamax(UniformTree(b, d), d, prune=False, counter=full) == value
    assert full[0] == b**d


def test_time_budget_is_respected():
    engine = Engine(FlagBotsConfig(), searcher("full"))
    engine.search(Position().st, depth=2, time_s=None)  # compile outside the timing
    start = time.process_time()
    result = engine.search(Position().st, time_s=0.3)
    spent = time.process_time() - start
    assert result.depth >= 2
    # The kernels stop at a wall-clock deadline; the CPU time is what this test can bound on 2
    # cores shared with other tests and Ray workers. A search that ignored the budget would run
    # for far longer.
    assert spent < 1.0, spent


class _ClockBehind:
    """``time`` for the engine module, its monotonic clock 10 s behind the kernels' (the same
    CLOCK_MONOTONIC, read by clock_gettime): every deadline it computes has passed already."""

    def __getattr__(self, name):
        return getattr(time, name)

    @staticmethod
    def monotonic_ns() -> int:
        return time.monotonic_ns() - 10_000_000_000


def test_the_kernels_stop_at_the_deadline(monkeypatch):
    """The deadline is read in the kernels, every CLOCK_EVERY nodes: with one already past, an
    iteration that needs more nodes than that is cut short and discarded; the control, the same
    search with the deadline ahead, completes every depth asked."""
    from sparring.flagbots import engine as engine_module

    start = Position().st
    ahead = Engine(FlagBotsConfig(), searcher("full")).search(start, depth=4, time_s=5.0)
    assert ahead.depth == 4
    small = [n for n in ahead.per_depth_nodes if n < engine_module.CLOCK_EVERY]  # depths 1, 2
    monkeypatch.setattr(engine_module, "time", _ClockBehind())
    cut = Engine(FlagBotsConfig(), searcher("full")).search(start, depth=4, time_s=5.0)
    assert cut.depth == len(small) == 2
    assert cut.nodes < sum(small) + 2 * engine_module.CLOCK_EVERY


def test_memory_stays_within_the_bound():
    for mb in (1, 16, 100):
        engine = Engine(FlagBotsConfig(), searcher("full", memory_mb=mb))
        assert engine.memory_bytes <= mb * 1024 * 1024 + 2 * 1024 * 1024  # + fixed buffers


def test_unknown_searcher():
    with pytest.raises(ValueError, match="unknown searcher 'fast'"):
        searcher("fast")


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"max_depth": 0}, "max_depth=0 is not allowed"),
        ({"time_s": 0.0}, "time_s=0.0 is not allowed"),
        ({"memory_mb": 0}, "memory_mb=0 is not allowed"),
        ({"aspiration": -5}, "aspiration=-5 is not allowed"),
    ],
)
def test_a_searcher_with_an_unusable_budget_is_refused(overrides, message):
    from sparring.flagbots.searchers import searcher

    with pytest.raises(ValueError, match=message):
        searcher("full", **overrides)
