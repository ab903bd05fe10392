"""FlagBots: is the ``reduced`` searcher stronger than ``full`` (the engine before it)? Depth
reached in the same time on the same positions, then games between the two at a time a move,
with an SPRT (elo0 = 0, elo1 = 50, alpha = beta = 0.05) that stops the match when it decides.

    python benchmarks/search_strength.py [--ms 100] [--pairs 200] [--workers 2]
        [--record FILE [--status]] [--quick]

Games come two a seed, each searcher South once. Each game's first four plies are random,
drawn from the seed and who is South: the two games of a seed open differently, so the SPRT
counts games, not pairs. Both searchers get the same time a move (``--ms``; the contest rule is
2,000 ms, which takes hours of this machine for an SPRT: the default is 100). Results, the Elo
with its 95% interval and the SPRT's verdict are printed, the figures as JSON on the last line.

``--record FILE`` keeps the match: each finished pair is appended to it as a JSON line
(``{"ms": 2000, "seed": 7, "scores": [1.0, 0.5]}``, the new searcher's points as South, then
as North), and a run given the same file and ``--ms`` starts from the pairs in it, goes on with
the next seeds and stops at ``--pairs`` pairs in all. A line may also sum up games whose order
was not kept (``{"ms": 2000, "seeds": [0, 24], "wins": 15, "draws": 26, "losses": 9}``,
before any pair line): the SPRT is read only after them, as it would have been when they were
played (a run that stopped at a cap, undecided). ``--status`` prints where a record's match
stands (score, Elo, the LLR against its bounds) and plays nothing.
"""

from __future__ import annotations

import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import parser, report

from sparring.arena.sprt import SPRT, first_exit
from sparring.flagbots.engine import Engine
from sparring.flagbots.game import Position
from sparring.flagbots.match import elo_from_score, play_game
from sparring.flagbots.rules import FlagBotsConfig, initial
from sparring.flagbots.searchers import searcher

NEW, OLD = "reduced", "full"


def positions(count: int) -> list[np.ndarray]:
    """The start and ``count - 1`` positions a few random plies in (seeded)."""
    out = [initial(FlagBotsConfig())]
    seed = 0
    while len(out) < count:
        pos, rng = Position(), np.random.default_rng(seed)
        for _ in range(6 + 4 * seed):
            pos.apply_action(int(rng.choice(pos.legal_actions())))
            if pos.is_terminal():
                break
        if not pos.is_terminal():
            out.append(pos.st.copy())
        seed += 1
    return out


def depths(kind: str, states: list[np.ndarray], seconds: float) -> tuple[list[int], float]:
    """The last completed depth of a fresh engine on each position within ``seconds``, and the
    longest of those searches, wall seconds (the deadline kept)."""
    cfg = FlagBotsConfig()
    results = [Engine(cfg, searcher(kind)).search(st, time_s=seconds) for st in states]
    return [r.depth for r in results], max(r.seconds for r in results)


def pair(seed: int, ms: float) -> tuple[float, float]:
    """NEW's points (0, 0.5 or 1) in the two games of ``seed``: South, then North."""
    cfg = FlagBotsConfig()
    new, old = searcher(NEW, time_s=ms / 1000), searcher(OLD, time_s=ms / 1000)
    south = play_game(cfg, new, old, seed, opening_plies=4).result
    north = -play_game(cfg, old, new, seed, opening_plies=4).result
    return (south + 1) / 2, (north + 1) / 2


def load_record(path: Path | None, ms: float) -> tuple[list[float], int, int]:
    """(games, unordered, next seed) of a record at ``ms`` a move: the new searcher's score a
    game in the order played, how many of the first were summed up (their order not kept), and
    the first seed not yet played. Lines at another time a move are skipped."""
    games: list[float] = []
    unordered, next_seed = 0, 0
    if path is None or not path.exists():
        return games, unordered, next_seed
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            sys.exit(f"{path}:{number}: not a JSON line (a run killed as it wrote? remove it)")
        if entry.get("ms") != ms:
            continue
        if "seeds" in entry:
            if len(games) > unordered:
                sys.exit(f"{path}:{number}: a summary line must come before the pair lines")
            wins, draws, losses = entry["wins"], entry["draws"], entry["losses"]
            games += [1.0] * wins + [0.5] * draws + [0.0] * losses
            unordered = len(games)
            next_seed = max(next_seed, entry["seeds"][1] + 1)
        else:
            games += [float(x) for x in entry["scores"]]
            next_seed = max(next_seed, entry["seed"] + 1)
    return games, unordered, next_seed


def append(path: Path | None, entry: dict) -> None:
    """One line more in the record, on disk before the next pair is read."""
    if path is None:
        return
    with path.open("a") as out:
        out.write(json.dumps(entry) + "\n")
        out.flush()
        os.fsync(out.fileno())


def verdict(test: SPRT, games: list[float], unordered: int) -> str:
    """The SPRT's verdict on ``games``, read only from the last of the ``unordered`` ones on
    (earlier points of the path depend on an order that was not kept)."""
    games = games[: test.max_units]  # a record longer than the cap: read up to it
    if len(games) < 2:
        return "continue"
    path = test.llr_path(np.array(games))
    start = max(unordered - 1, 0)
    found, _ = first_exit(path[start:], test.alpha, test.beta, test.max_units - start)
    return found


def standing(test: SPRT, games: list[float], unordered: int) -> str:
    """One line: the games, the score, the Elo with its 95% interval, the LLR and the verdict."""
    wins, losses = games.count(1.0), games.count(0.0)
    draws = len(games) - wins - losses
    elo, low, high = elo_from_score(wins, draws, losses)
    llr = float(test.llr_path(np.array(games))[-1]) if len(games) >= 2 else 0.0
    lower, upper = test.bounds
    return (
        f"{len(games)} games, +{wins} ={draws} -{losses}, Elo {elo:+.0f} [{low:+.0f}, "
        f"{high:+.0f}], LLR {llr:.2f} in ({lower:.2f}, {upper:.2f}), "
        f"SPRT {verdict(test, games, unordered)}"
    )


def main() -> None:
    args = parser(__doc__)
    args.add_argument("--ms", type=float, default=100.0, help="time a move, ms (100)")
    args.add_argument("--pairs", type=int, default=200, help="most game pairs (200)")
    args.add_argument("--workers", type=int, default=2, help="processes playing (2)")
    args.add_argument("--record", type=Path, help="JSON lines of the pairs played, to resume")
    args.add_argument("--status", action="store_true", help="where the record stands; no play")
    opts = args.parse_args()
    pairs = 10 if opts.quick else opts.pairs
    # NEW's score a game, in the order the pairs were played (a bad record stops here, first)
    games, unordered, first = load_record(opts.record, opts.ms)
    test = SPRT(elo0=0.0, elo1=50.0, alpha=0.05, beta=0.05, max_units=2 * pairs)
    if opts.status:
        if opts.record is None or not opts.record.exists():
            sys.exit("--status reads a match's record: give it with --record FILE")
        print(f"{opts.record} at {opts.ms:g} ms a move: {standing(test, games, unordered)}")
        return
    states = positions(3 if opts.quick else 6)
    seconds = 0.5 if opts.quick else 2.0
    Engine(FlagBotsConfig(), searcher(NEW)).search(states[0], depth=2, time_s=None)  # compile
    measured = {kind: depths(kind, states, seconds) for kind in (OLD, NEW)}
    depth = {kind: found[0] for kind, found in measured.items()}
    longest = max(found[1] for found in measured.values())
    found = verdict(test, games, unordered)
    seeds = range(first, first + max(pairs - len(games) // 2, 0))
    if found == "continue" and seeds:
        print(f"{len(games)} games on record; playing seeds {seeds.start}..{seeds.stop - 1}")
        with ProcessPoolExecutor(opts.workers) as pool:
            futures = [pool.submit(pair, seed, opts.ms) for seed in seeds]
            for seed, future in zip(seeds, futures, strict=True):
                scores = future.result()
                append(opts.record, {"ms": opts.ms, "seed": seed, "scores": list(scores)})
                games += scores
                found = verdict(test, games, unordered)
                print(f"  seed {seed}: {scores}; {standing(test, games, unordered)}", flush=True)
                if found != "continue":
                    for rest in futures:
                        rest.cancel()
                    break
    wins = sum(g == 1.0 for g in games)
    losses = sum(g == 0.0 for g in games)
    draws = len(games) - wins - losses
    elo, low, high = elo_from_score(wins, draws, losses)
    report(
        f"flagbots search strength: {NEW} against {OLD}",
        [
            (f"{OLD}: depth in {seconds:g} s, {len(states)} positions", min(depth[OLD]),
             f"depths {depth[OLD]}"),
            (f"{NEW}: depth in {seconds:g} s", min(depth[NEW]), f"depths {depth[NEW]}"),
            (f"the longest of these {seconds:g} s searches, s", longest, "wall time"),
            (f"games at {opts.ms:g} ms a move", len(games), f"+{wins} ={draws} -{losses}"),
            ("Elo, the new against the old", elo, f"95% [{low:+.0f}, {high:+.0f}], SPRT {found}"),
        ],
        {
            "depths_old": depth[OLD],
            "depths_new": depth[NEW],
            "longest_search_s": round(longest, 4),
            "ms_a_move": opts.ms,
            "wins": wins,
            "draws": draws,
            "losses": losses,
            "elo": round(elo, 1),
            "elo_low": round(low, 1),
            "elo_high": round(high, 1),
            "sprt": found,
            "quick": opts.quick,
        },
    )


if __name__ == "__main__":
    main()
