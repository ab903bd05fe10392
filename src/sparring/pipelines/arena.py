"""The ``arena`` pipeline: a gauntlet, a round robin or an SPRT head-to-head of any agents.

Units of play (``sparring.arena.contest``) fan out as Ray tasks in blocks; each finished block
is kept under ``<output_dir>/<hash of the config and the agents' digests>/blocks/`` (JSON sealed
with an HMAC under the store's key, ``<output_dir>/.key``: a damaged or forged file is played
again, never read), so a killed contest rerun plays only the missing blocks. Every unit's chance
is derived from the same key (``contest.unit_seed``): no entrant can compute it. An SPRT plays
waves of blocks until the test decides (the decision is taken on the units in order, so it does
not depend on how many blocks ran at once) or ``sprt.max_units``.

Recorded: one MLflow run with the entrants and their digests as params, per pair the score,
its Elo and 95% interval, forfeits; Bradley–Terry ratings with intervals (the league's); the
games as ``games.jsonl`` (every action, every forfeit and its reason, per seat the invalid
actions an ACPC program sent, each played as a call; per ``acpc:`` entrant their total is the
metric ``invalid_actions/<name>``), and in the game's own record where it keeps one (its
``history``: poker's ``hands.log``, the ACPC reference dealer's ``STATE:`` lines), else as
``games.txt`` (a readable record: FlagBots moves in the engine's notation, Mus and Eleusis
decisions by seat, ``arena.records``); in a game whose returns are amounts (``win_rate_unit``)
each pair's result per 100 games in that unit too (poker's bb/100); an SPRT's LLR path as
``sprt.png``.

Nothing here names a game: what differs between games is asked of the registry
(``sparring.game_api.trait``) and of the game itself.
"""

from __future__ import annotations

import hashlib
import json
import textwrap
import time
from typing import Any

import numpy as np

from sparring.arena.agents import parse, short_names
from sparring.arena.contest import (
    Block,
    blocks_for,
    contest_secret,
    elo,
    mean_interval,
    pair_scores,
    pair_win_rate,
    play_block,
    score_interval,
    table,
)
from sparring.arena.records import games_text
from sparring.champions.registry import resolve_champion
from sparring.config.arena import ArenaConfig, Kind
from sparring.frame.session import Session, pipeline_session, results_hash
from sparring.ga.round_robin import rate
from sparring.game_api import load, trait
from sparring.reporting.console import console
from sparring.runtime.config import config_hash, metric_name
from sparring.runtime.errors import ConfigError
from sparring.runtime.ray.parallel import parallel_map
from sparring.runtime.storage import keys
from sparring.runtime.storage.location import Location


def _block_file(cache: Location, block: Block) -> Location:
    digest = hashlib.sha256(block.key.encode()).hexdigest()[:16]
    return cache / f"{block.start:06d}-{digest}.json"


def _save(cache: Location, result: dict[str, Any], key: bytes) -> None:
    body = json.dumps(result, sort_keys=True)
    mark = keys.seal(key, body.encode())
    _block_file(cache, Block(**result["block"])).write_text(
        json.dumps({"hmac": mark, "result": result})
    )


def _load(cache: Location, block: Block, key: bytes) -> dict[str, Any] | None:
    """A finished block, or None when it is missing, damaged or not sealed with the store's
    key (it is then played again)."""
    where = _block_file(cache, block)
    if not where.exists():
        return None
    try:
        saved = json.loads(where.read_text())
        body = json.dumps(saved["result"], sort_keys=True)
        if not keys.sealed_by(key, body.encode(), saved["hmac"]):
            raise ValueError("not sealed with this store's key")
        if Block(**saved["result"]["block"]) != block:  # an intact copy of another block
            raise ValueError(f"it holds block {saved['result']['block']}, not this one")
    except (ValueError, KeyError, TypeError) as exc:
        console.print(f"{where.display()}: damaged ({exc}); played again", soft_wrap=True)
        return None
    return saved["result"]


def _play(
    job: ArenaConfig, cache: Location, blocks: list[Block], wave: int, resolved: dict
) -> list[dict]:
    """Every block's result: the finished ones read back, the rest played ``wave`` at a time
    (one progress bar a wave; each block saved as soon as it ends). ``resolved``: the
    champions' chromosomes by spec."""
    key = keys.store_key(cache.parent.parent)  # beside the store: <output_dir>/.key
    results: dict[Block, dict[str, Any] | None] = {b: _load(cache, b, key) for b in blocks}
    missing = [b for b, r in results.items() if r is None]
    if len(missing) < len(blocks):
        console.print(f"{len(blocks) - len(missing)} of {len(blocks)} blocks already played")
    shared = {
        "secret": contest_secret(key, job.seed),
        "limits": job.limits.limits(),
        "opening_plies": job.plies,
        "withdraw_after": job.withdraw_after,
        "resolved": resolved,
    }

    for start in range(0, len(missing), wave):
        part = missing[start : start + wave]

        def keep(i: int, result: dict[str, Any], part: list[Block] = part) -> None:
            _save(cache, result, key)  # as each block ends: a rerun resumes there
            results[part[i]] = result

        units = sum(b.stop - b.start for b in part)
        parallel_map(play_block, part, shared=shared,
                     description=f"arena: {len(part)} blocks of {units} units",
                     on_result=keep)  # fmt: skip
    return [r for r in results.values() if r is not None]


def _sprt(
    job: ArenaConfig, cache: Location, wave: int, resolved: dict
) -> tuple[list[dict], str, int]:
    """Waves of blocks until the test decides: the results, the decision and its units."""
    a, b = job.pairs()[0]
    test = job.sprt.test()
    results: list[dict] = []
    decision, used = "continue", 0
    done = 0
    while decision == "continue" and done < test.max_units:
        stop = min(test.max_units, done + wave * job.block)
        blocks = [Block(job.game, a, b, s, min(s + job.block, stop), job.seats or 0,
                        job.variant) for s in range(done, stop, job.block)]  # fmt: skip
        results += _play(job, cache, blocks, wave, resolved)
        done = stop
        decision, used = test.decide(pair_scores(results, a, b))
    return results, decision, used


def _champions(job: ArenaConfig) -> dict[str, dict[str, Any]]:
    """The chromosome and preflop factors of every ``champion@`` entrant, read from the model
    registry before any game (a missing one is one line), keyed by the entrant as spelled."""
    return {
        entrant: resolve_champion(
            job.tracking.uri,
            job.model_name,
            spec,
            "agent" if entrant == job.under_test else "field",
        )
        for entrant in job.entrants
        if (spec := parse(entrant)).kind == "champion"
    }


def _check_acpc_programs(job: ArenaConfig) -> None:
    """Every ``acpc:`` entrant started once, before Ray: one that exits at once, or does not
    connect and send its version within ``limits.start_s``, is one line (a ``cmd:`` program
    is asked nothing until its first game, so it is not started here)."""
    from sparring.arena.acpc_seat import AcpcProgramAgent
    from sparring.runtime.programs.program import AgentFault

    for entrant in job.entrants:
        spec = parse(entrant)
        if spec.kind != "acpc":
            continue
        seat = AcpcProgramAgent(spec.argv, job.limits.limits(), entrant)
        try:
            seat.start({"game": job.game, "seat": 0, "players": job.seats or 2, "seed": 0})
        except AgentFault as fault:
            key = "agent" if entrant == job.under_test else "field"
            raise ConfigError(
                key,
                entrant,
                f"an ACPC program that connects to its dealer and "
                f"sends VERSION:2.0.0 ({fault.kind}: {fault.detail})",
            ) from None
        finally:
            seat.close()


def run(job: ArenaConfig) -> dict[str, Any]:
    """Play the contest; returns the run id, the metrics and the per-pair ``pairs`` rows."""
    champions = _champions(job)
    _check_acpc_programs(job)
    digests = _digests(job, champions)
    tags = {"arena_kind": job.kind.value, "arena_game": job.game}
    with pipeline_session(job, "arena", tags=tags) as session:
        _log_entrants(session, job, digests, champions)
        contest = _contest_dir(session, job, digests)
        cache, wave = contest / "blocks", max(2, 2 * session.cores)
        began = time.perf_counter()
        results, decision, decided_at = _play_contest(job, cache, wave, champions)
        metrics, rows = _metrics(job, results, wall=time.perf_counter() - began)
        if decision is not None:
            metrics |= {"sprt_units": decided_at or 0, "sprt_h1": float(decision == "H1")}
            session.run.set_tags({"sprt_decision": decision})
            _log_sprt_plot(session, job, results)
        _print_withdrawals(results)
        session.log_metrics(metrics)
        _log_tables(session, job, metrics, rows)
        if decision is not None:
            _print_sprt_decision(job, results, decision, decided_at)
        _log_games(session, job, results)
    return session.results(metrics, pairs=rows, decision=decision, contest=contest)


def _digests(job: ArenaConfig, champions: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Every entrant's digest, keyed by the entrant as spelled: a ``champion@``'s from the
    registry (``champions``, from ``_champions``), any other's from its code."""
    return {
        spec: champions[spec]["digest"] if spec in champions else parse(spec).digest()
        for spec in job.entrants
    }


def _log_entrants(
    session: Session,
    job: ArenaConfig,
    digests: dict[str, str],
    champions: dict[str, dict[str, Any]],
) -> None:
    """One ``log_params`` call: per entrant in order its spec (``entrant/<i>``) and digest
    (``digest/<i>``), and a champion's registry version (``version/<i>``)."""
    session.run.log_params(
        {f"entrant/{i}": spec for i, spec in enumerate(job.entrants)}
        | {f"digest/{i}": digests[spec] for i, spec in enumerate(job.entrants)}
        | {
            f"version/{i}": champions[spec]["version"]
            for i, spec in enumerate(job.entrants)
            if spec in champions
        }
    )


def _contest_dir(session: Session, job: ArenaConfig, digests: dict[str, str]) -> Location:
    """The contest's directory, ``<output_dir>/<hash of the config and the digests>``, checked
    writable (one line now, not after the first wave of blocks) and named in the summary as
    ``contest``; its finished blocks are kept under ``blocks/``."""
    # the config and the agents' code: an edited bot's old blocks are never read back
    contest = session.locate(job.output_dir) / config_hash(
        {"job": results_hash(job), "digests": digests}
    )
    contest.check_writable()
    session.output("contest", contest)
    return contest


def _play_contest(
    job: ArenaConfig, cache: Location, wave: int, champions: dict[str, dict[str, Any]]
) -> tuple[list[dict], str | None, int | None]:
    """Play the contest (blocks kept in ``cache``): the blocks' results, and for an SPRT its
    decision and the units it was taken on (None and None for any other kind). An SPRT plays
    ``wave`` blocks at a time; any other kind every block at once."""
    if job.kind is Kind.sprt:
        return _sprt(job, cache, wave, champions)
    blocks = [
        blk for a, b in job.pairs()
        for blk in blocks_for(job.game, a, b, job.units, job.block, job.seats or 0, job.variant)
    ]  # fmt: skip
    # every block at once (one bar): the waves are the SPRT's, which decides between
    return _play(job, cache, blocks, max(1, len(blocks)), champions), None, None


def _metrics(
    job: ArenaConfig, results: list[dict], wall: float
) -> tuple[dict[str, float], list[list]]:
    """The run's metrics but the SPRT's (per pair, the ratings, the ACPC programs' invalid
    actions, then ``games``, ``forfeits``, ``decisions`` and ``wall_s``: in that order) and
    the per-pair table rows."""
    games = [g for r in results for u in r["units"] for g in u["games"]]
    metrics, rows = _pair_metrics(job, results)
    metrics |= _ratings(job, results)
    metrics |= _invalid_actions(job, results)
    metrics |= {
        "games": len(games),
        "forfeits": sum(g["forfeit_seat"] is not None for g in games),
        "decisions": sum(g["decisions"] for g in games),
        "wall_s": wall,
    }
    return metrics, rows


def _print_withdrawals(results: list[dict]) -> None:
    """One line per entrant withdrawn from a block, with why, in the blocks' order."""
    for result in results:
        for why in result["withdrawn"].values():
            console.print(f"withdrawn: {why}", soft_wrap=True, markup=False)


def _log_tables(
    session: Session, job: ArenaConfig, metrics: dict[str, float], rows: list[list]
) -> None:
    """Print and keep the pairs' table (``pairs.txt``) and, with more than two rated
    entrants, the Bradley–Terry ratings' (``ratings.txt``)."""
    unit = trait(job.game, "win_rate_unit")
    session.table(
        f"arena: {job.kind.value} in {job.game}",
        [
            "A",
            "B",
            "units",
            "A's score",
            "Elo (95%)",
            *([f"A's {unit[0]}/100 (95%)"] if unit else []),
            "forfeits A/B",
        ],
        rows,
        artifact="pairs.txt",
    )
    rated = [[name, _signed(metrics[k]),
              f"[{_signed(metrics[k + '_low'])}, {_signed(metrics[k + '_high'])}]"]
             for name in job.entrants
             if (k := metric_name("rating", _names(job)[name])) in metrics]  # fmt: skip
    if len(rated) > 2:  # (two entrants: the pair's line says it all)
        session.table("ratings (Bradley–Terry, Elo scale, mean 0)",
                      ["agent", "rating", "95%"], rated, artifact="ratings.txt")  # fmt: skip


def _print_sprt_decision(
    job: ArenaConfig, results: list[dict], decision: str, decided_at: int | None
) -> None:
    """The SPRT's one line: its decision, the units it was taken on, its bounds, and when
    whole blocks played more units than that, how many (the table's score is over them all)."""
    played = pair_scores(results, *job.pairs()[0]).size
    # the test decides on the units in order; a wave plays whole blocks, so the table
    # (every unit played) may count more than the decision needed: both are said
    more = (f"; {played} units played in whole blocks, the table's score is over all "
            f"{played}") if played > (decided_at or 0) else ""  # fmt: skip
    console.print(f"SPRT: {decision} after {decided_at} units "
                  f"(elo0={job.sprt.elo0:g}, elo1={job.sprt.elo1:g}{more})")  # fmt: skip


def _log_games(session: Session, job: ArenaConfig, results: list[dict]) -> None:
    """Keep the games: every game as a line of ``games.jsonl``, then the game's own record
    where it keeps one (its ``history_writer``: poker's ``hands.log``), else ``games.txt``."""
    session.run.log_text("".join(json.dumps(g) + "\n" for g in _game_log(results)), "games.jsonl")
    played = table(job.game, job.seats or 0, job.variant)
    writer = trait(job.game, "history_writer")  # the game's own record (poker's hands.log)
    if writer is not None:
        artifact, text = load(writer)(played, _game_log(results), _names(job).__getitem__)
    else:  # FlagBots moves in the engine's notation, Mus and Eleusis decisions by seat
        artifact = "games.txt"
        text = games_text(played, _game_log(results), _names(job).__getitem__)
    session.run.log_text(text, artifact)


def _pair_metrics(job: ArenaConfig, results: list[dict]) -> tuple[dict[str, float], list[list]]:
    metrics: dict[str, float] = {}
    rows = []
    named = _names(job)
    unit = trait(job.game, "win_rate_unit")  # poker: ("bb", 2), its result in bb/100
    for a, b in job.pairs():
        scores = pair_scores(results, a, b)
        mean, low, high = score_interval(scores)
        faults = [
            g["seating"][g["forfeit_seat"]]
            for r in results
            if (r["block"]["a"], r["block"]["b"]) == (a, b)
            for u in r["units"]
            for g in u["games"]
            if g["forfeit_seat"] is not None
        ]
        name = metric_name("pair", named[a], named[b])
        metrics |= {f"{name}/score": mean, f"{name}/elo": elo(mean), f"{name}/units": scores.size,
                    f"{name}/score_low": low, f"{name}/score_high": high}  # fmt: skip
        shown = _elo_interval(mean, low, high)
        row = [a, b, scores.size, f"{mean:.3f}", shown]
        if unit:  # amounts beside the score (poker: a unit won by 1 chip scores 1)
            won, won_low, won_high = mean_interval(pair_win_rate(results, a, b, unit[1]))
            key = f"{name}/{unit[0]}100"  # poker: <pair>/bb100
            metrics |= {key: won, f"{key}_low": won_low, f"{key}_high": won_high}
            row.append(f"{won:+.1f} [{won_low:+.1f}, {won_high:+.1f}]")
        rows.append([*row, f"{faults.count('A')}/{faults.count('B')}"])
    return metrics, rows


def _ratings(job: ArenaConfig, results: list[dict]) -> dict[str, float]:
    """Bradley–Terry ratings (Elo scale, mean 0) with bootstrap intervals over units."""
    names = job.entrants
    index = {n: i for i, n in enumerate(names)}
    edges = {}
    for a, b in job.pairs():
        scores = pair_scores(results, a, b) - 0.5  # > 0: A won the unit
        i, j = index[a], index[b]
        edges[(i, j) if i < j else (j, i)] = scores if i < j else -scores
    if len({len(e) for e in edges.values()}) != 1:
        return {}
    ratings = rate(names, edges, bootstrap=200, seed=job.seed)
    out: dict[str, float] = {}
    named = _names(job)
    for k, name in enumerate(names):
        key = metric_name("rating", named[name])
        out |= {key: float(ratings.rating[k]), f"{key}_low": float(ratings.low[k]),
                f"{key}_high": float(ratings.high[k])}  # fmt: skip
    return out


def _names(job: ArenaConfig) -> dict[str, str]:
    """Every entrant's name in metric keys, tables and logs: unique within the contest (two
    programs whose command lines end alike are told apart, ``arena.agents.short_names``)."""
    return dict(zip(job.entrants, short_names(job.entrants), strict=True))


def _invalid_actions(job: ArenaConfig, results: list[dict]) -> dict[str, float]:
    """Per ``acpc:`` entrant, ``invalid_actions/<name>``: the actions its program sent that
    it may not play there (each played as a call, as the reference dealer does)."""
    counts = dict.fromkeys((e for e in job.entrants if parse(e).kind == "acpc"), 0)
    for g in _game_log(results):
        for spec, sent in zip(g["seats"], g.get("invalid") or (), strict=False):  # (older: none)
            if spec in counts:
                counts[spec] += sent
    named = _names(job)
    return {metric_name("invalid_actions", named[e]): float(n) for e, n in counts.items()}


def _elo_interval(mean: float, low: float, high: float) -> str:
    """A's Elo and its 95% interval (Wilson's, on the score). A bound at a score of 0 or 1 is
    no number: every unit won reads "≥ +167 (95%)", not a point at the clamp (+1200)."""
    if not np.isfinite(mean):
        return "-"
    if high >= 1.0 and low <= 0.0:
        return "? (too few units)"
    if high >= 1.0:
        return f"≥ {_signed(elo(low))} (95%)"
    if low <= 0.0:
        return f"≤ {_signed(elo(high))} (95%)"
    return f"{_signed(elo(mean))} [{_signed(elo(low))}, {_signed(elo(high))}]"


def _signed(value: float) -> str:
    """An Elo figure to the unit, signed, never "-0" (-0.3 is +0)."""
    return f"{round(value):+d}" if np.isfinite(value) else f"{value:+}"


def _game_log(results: list[dict]):
    for r in results:
        for u in r["units"]:
            for g in u["games"]:
                roles = {"A": r["block"]["a"], "B": r["block"]["b"]}
                yield {"unit": u["unit"], "seed": u["seed"], "opening": u["opening"],
                       "seats": [roles[who] for who in g["seating"]], **g}  # fmt: skip


def _log_sprt_plot(session, job: ArenaConfig, results: list[dict]) -> None:
    a, b = job.pairs()[0]
    test = job.sprt.test()
    path = test.llr_path(pair_scores(results, a, b))

    def draw(directory):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 4))
        ax.plot(np.arange(1, path.size + 1), path, label="LLR")
        lower, upper = test.bounds
        ax.axhline(upper, color="green", ls="--", label=f"accept H1 (elo >= {test.elo1:g})")
        ax.axhline(lower, color="red", ls="--", label=f"accept H0 (elo <= {test.elo0:g})")
        ax.set_xlabel("units")
        ax.set_ylabel("log-likelihood ratio")
        # the entrants' short names, the title wrapped: a command line is no title
        ax.set_title(textwrap.fill(f"SPRT: {_names(job)[a]} vs {_names(job)[b]}", 70), fontsize=10)
        ax.legend()
        fig.tight_layout()
        out = directory / "sprt.png"
        fig.savefig(out, dpi=100)
        plt.close(fig)
        return out

    session.log_plot(draw)
