"""FlagBots search: nodes per second per core and depth reached in 2 s from the start.

    python benchmarks/search.py [--quick]
    python benchmarks/search.py --against HEAD~1     # this tree's engine against a commit's

Every searcher configuration of the engine against the plain minimax configuration in the same
run, plus the generic pure-Python alpha-beta (``sparring.flagbots.alphabeta``) on the same
position as the interpreted baseline.

``--against REV`` measures a kernel change: the engine of this working tree and the engine of
commit ``REV`` (extracted with ``git archive``) search the same positions to fixed depths (the
same node counts, so only the speed differs), in alternating rounds in fresh processes; the
best round of each gives nodes/s and the ratio ours / theirs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import parser, report

from sparring.flagbots.alphabeta import negamax
from sparring.flagbots.engine import Engine, evaluate
from sparring.flagbots.game import Position
from sparring.flagbots.rules import FlagBotsConfig
from sparring.flagbots.searchers import SEARCHERS, searcher


class _PyGame(Position):
    def evaluate(self) -> float:
        return float(evaluate(self.st))


ROOT = Path(__file__).resolve().parent.parent
# Uses only what every version of the engine has: Engine, searcher, FlagBotsConfig, Position
# (the package was sparring.search before it was named after the game, and searcher lived in
# its engine module before sparring.flagbots.searchers).
_FIXED_DEPTH = """
import json, time
try:
    from sparring.flagbots.engine import Engine
    try:
        from sparring.flagbots.searchers import searcher
    except ImportError:  # before the searchers had a module of their own
        from sparring.flagbots.engine import searcher
    from sparring.flagbots.rules import FlagBotsConfig
    from sparring.flagbots.game import Position
except ImportError:
    from sparring.search.engine import Engine, searcher
    from sparring.search.flagbots import FlagBotsConfig
    from sparring.search.game import Position
cfg = FlagBotsConfig()
positions = [Position(cfg).st]
mid = Position(cfg)
for move in (0, 5, 3, 7, 2, 9):
    legal = mid.legal_actions()
    mid.apply_action(legal[move % len(legal)])
positions.append(mid.st)
out = {}
for kind, depth in SEARCHES:
    engine = Engine(cfg, searcher(kind))
    nodes, seconds = 0, 0.0
    for st in positions:
        r = engine.search(st, depth=depth, time_s=None)
        nodes, seconds = nodes + r.nodes, seconds + r.seconds
    out[kind] = {"nodes": nodes, "nps": nodes / seconds}
print(json.dumps(out))
"""


def _fixed_depth_rates(src: Path, searches: list[tuple[str, int]]) -> dict:
    """Nodes and nodes/s of each search in a fresh process importing ``src``."""
    code = f"SEARCHES = {searches!r}\n" + _FIXED_DEPTH
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def against(rev: str, quick: bool) -> None:
    """This tree's engine against commit ``rev``'s, same searches, alternating rounds."""
    searches = [("minimax", 4), ("alphabeta", 6), ("full", 8 if quick else 9)]
    rounds = 2 if quick else 4
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "rev.tar"
        with open(archive, "wb") as f:
            subprocess.run(["git", "archive", rev, "src"], cwd=ROOT, stdout=f, check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter="data")
        theirs_src, ours_src = Path(tmp) / "src", ROOT / "src"
        best: dict[str, dict[str, float]] = {"ours": {}, "theirs": {}}
        nodes: dict[str, dict[str, int]] = {"ours": {}, "theirs": {}}
        for _ in range(rounds):
            for side, src in (("theirs", theirs_src), ("ours", ours_src)):
                for kind, r in _fixed_depth_rates(src, searches).items():
                    best[side][kind] = max(best[side].get(kind, 0.0), r["nps"])
                    nodes[side][kind] = r["nodes"]
    rows, figures = [], {"against": rev, "rounds": rounds, "quick": quick}
    for kind, depth in searches:
        if nodes["ours"][kind] != nodes["theirs"][kind]:
            raise SystemExit(f"{kind}: the two engines searched different trees")
        ratio = best["ours"][kind] / best["theirs"][kind]
        rows.append(
            (
                f"{kind} to depth {depth}: nodes/s",
                best["ours"][kind],
                f"{rev}: {best['theirs'][kind]:,.0f}; ratio {ratio:.3f} "
                f"({nodes['ours'][kind]:,} nodes, same tree)",
            )
        )
        figures[f"{kind}_nps"] = round(best["ours"][kind])
        figures[f"{kind}_nps_{rev}"] = round(best["theirs"][kind])
        figures[f"{kind}_ratio"] = round(ratio, 3)
    report(f"search: this tree against {rev} (fixed depths, best of {rounds})", rows, figures)


def main() -> None:
    cli = parser(__doc__)
    cli.add_argument("--against", metavar="REV", help="compare this tree's engine with REV's")
    args = cli.parse_args()
    if args.against:
        against(args.against, args.quick)
        return
    budget = 0.5 if args.quick else 2.0
    cfg = FlagBotsConfig()
    start = Position(cfg).st
    rows, figures = [], {"budget_s": budget, "quick": args.quick}
    base = None
    for kind in SEARCHERS:
        engine = Engine(cfg, searcher(kind))
        r = engine.search(start, time_s=budget)
        base = base or r.nps
        rows.append(
            (
                f"{kind}: nodes/s",
                r.nps,
                f"depth {r.depth} in {budget:g} s, {r.nps / base:.2f}x minimax's speed",
            )
        )
        figures[f"{kind}_nps"] = round(r.nps)
        figures[f"{kind}_depth_in_budget"] = r.depth
    game = _PyGame(cfg)
    counter = [0]
    t = time.perf_counter()
    negamax(game, 3, counter=counter)
    py_rate = counter[0] / (time.perf_counter() - t)
    rows.append(
        (
            "pure-Python alpha-beta: leaves/s",
            py_rate,
            f"engine minimax is {base / py_rate:,.0f}x faster",
        )
    )
    figures["python_alphabeta_leaves_per_s"] = round(py_rate)
    figures["ratio_engine_vs_python"] = round(base / py_rate, 1)
    report("search (FlagBots start position, one core)", rows, figures)


if __name__ == "__main__":
    main()
