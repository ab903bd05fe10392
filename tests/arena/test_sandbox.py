"""Faults of outside programs, each injected by a real bot: the game is forfeited with the reason,
every process of the bot's group is ended, and the arena goes on (and never hangs)."""

from __future__ import annotations

import dataclasses
import os
import signal
import socket
import sys
import textwrap
import time
from pathlib import Path

import pytest

from sparring import game_api
from sparring.arena.agents import FirstAgent, make, parse
from sparring.arena.play import play_game
from sparring.arena.protocol import ProgramAgent
from sparring.poker import tables
from sparring.runtime import caches
from sparring.runtime.programs import jail
from sparring.runtime.programs.keeper import descendants
from sparring.runtime.programs.keeper import running as alive
from sparring.runtime.programs.program import (
    AgentFault,
    Limits,
    Program,
    live_members,
    network_isolation,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "agents"
FAST = Limits(move_s=1.0, start_s=5.0, memory_mb=100, cpu_s=30)
# the keeper's own guarantees, seen from this process (pids, its tree), where programs run
# with the user's rights; in the sandbox the kernel's pid namespace holds them too
# (tests/arena/test_hostile.py)
OPEN_FAST = dataclasses.replace(FAST, sandbox="none")

# A bot reads the start line, answers it, then does BODY at its first decision.
BOT = """
import json, os, sys, time
def say(obj):
    sys.stdout.write(json.dumps(obj) + "\\n"); sys.stdout.flush()
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        say({{"ready": True}})
    elif msg["type"] == "act":
{body}
"""
BODIES = {
    "crash": "raise RuntimeError('bot bug')",
    "hang": "time.sleep(3600)",
    "memory": "hog = bytearray(1 << 30); say({'action': msg['legal'][0]})",
    "garbage": "print('e2-e4 please', flush=True)",
    "illegal": "say({'action': 999999})",
    "no_action": "say({'move': msg['legal'][0]})",
    "deep_json": "print('[' * 60000, flush=True)",  # JSON no parser should take
    "float_action": "say({'action': float(msg['legal'][0])})",  # 1.0 is not the move 1
    "long_line": "sys.stdout.write('x' * (1 << 20)); sys.stdout.flush(); time.sleep(60)",
    "fork_and_exit": (
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    time.sleep(3600)\n"
        "sys.stderr.write(f'child {pid}\\n'); sys.stderr.flush(); os._exit(0)"
    ),
}
KINDS = {
    "crash": "crash",
    "hang": "timeout",
    "memory": "memory",
    "garbage": "garbage",
    "illegal": "illegal",
    "no_action": "garbage",
    "deep_json": "garbage",
    "float_action": "illegal",
    "long_line": "long_line",
    "fork_and_exit": "crash",  # it exits: its keeper ends the child it left at once
}


def bot(tmp_path: Path, body: str, name: str = "bot") -> str:
    script = tmp_path / f"{name}.py"
    script.write_text(BOT.format(body=textwrap.indent(body, " " * 8)))
    return f"cmd:{sys.executable} {script}"


def group_gone(pgid: int) -> bool:
    return live_members(pgid) == []


@pytest.mark.parametrize("fault", list(BODIES))
def test_a_faulty_bot_forfeits_its_game_and_leaves_nothing_running(tmp_path, fault):
    game = game_api.get("flagbots")
    agent = make(parse(bot(tmp_path, BODIES[fault])), FAST, name=fault)
    began = time.monotonic()
    record = play_game(game, [agent, FirstAgent()], seed=1, names=[fault, "first"])
    assert time.monotonic() - began < 15  # never waits beyond its limits
    assert record.forfeit_seat == 0 and record.forfeit_kind == KINDS[fault], record
    assert record.returns == [-1.0, 1.0]
    assert fault in record.forfeit_detail or KINDS[fault] == "illegal"
    if KINDS[fault] != "illegal":  # a fault ends the program; an illegal move is the arena's
        assert agent.program is None
    pgid = None if agent.program is None else agent.program.pid
    agent.close()
    if pgid is not None:
        assert group_gone(pgid)
    # the next game goes on, with a fresh process for the same (still faulty) bot
    again = play_game(game, [FirstAgent(), agent], seed=2, names=["first", fault])
    assert again.forfeit_seat == 1 and again.forfeit_kind == KINDS[fault]
    agent.close()


def test_a_child_the_bot_forked_is_ended_when_the_bot_exits(tmp_path):
    program = Program(parse(bot(tmp_path, BODIES["fork_and_exit"])).argv, OPEN_FAST, "forker")
    program.start()
    deadline = time.monotonic() + 5
    program.send({"type": "start"}, deadline)
    assert program.receive(deadline) == {"ready": True}
    program.send({"type": "act", "legal": [1]}, deadline)
    with pytest.raises(AgentFault) as fault:  # the end of its output is seen at once
        program.receive(time.monotonic() + 5)
    assert fault.value.kind == "crash" and "ended (exit status 0" in fault.value.detail
    child = int(program._stderr.text().split()[-1])
    assert not alive(child)  # its keeper ended the child it left holding stdout
    workdir = program.workdir
    program.close()
    assert not workdir.exists()


DETACHES = (
    "import subprocess\n"
    "child = subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
    "sys.stderr.write(f'child {child.pid}\\n'); sys.stderr.flush()\n"
    "say({'action': msg['legal'][0]})"
)


def test_a_keeper_killed_with_minus_9_takes_its_bot_with_it(tmp_path):
    program = Program(
        [sys.executable, "-c", "import time; time.sleep(3600)"], OPEN_FAST, "sleeper"
    )
    program.start()
    deadline = time.monotonic() + 5
    while not descendants(program.pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    [bot_pid] = descendants(program.pid)
    os.kill(program.pid, signal.SIGKILL)
    while alive(bot_pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not alive(bot_pid)
    program.close()


def test_a_child_in_a_session_of_its_own_is_ended_with_the_bot(tmp_path):
    """#27 item 11: a process group is not the tree; the keeper ends what left the group."""
    program = Program(parse(bot(tmp_path, DETACHES)).argv, OPEN_FAST, "detacher")
    program.start()
    deadline = time.monotonic() + 5
    program.send({"type": "start"}, deadline)
    assert program.receive(deadline) == {"ready": True}
    program.send({"type": "act", "legal": [1]}, deadline)
    assert program.receive(deadline) == {"action": 1}
    keeper = program.pid
    [child] = [pid for pid in descendants(keeper) if _command(pid) == "sleep"]
    assert os.getsid(child) == child  # it left the bot's session and group
    program.close()
    deadline = time.monotonic() + 5
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not alive(child)


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def test_a_bot_that_never_reads_cannot_block_the_arena(tmp_path):
    program = Program([sys.executable, "-c", "import time; time.sleep(3600)"], FAST, "deaf")
    program.start()
    began = time.monotonic()
    with pytest.raises(AgentFault) as fault:  # 8 MB into a pipe nobody reads
        program.send({"type": "act", "legal": ["x" * (8 << 20)]}, began + 1.0)
    assert fault.value.kind == "timeout" and "does not read its input" in fault.value.detail
    assert time.monotonic() - began < 3
    pgid = program.pid
    program.close()
    assert group_gone(pgid)


def test_a_bot_that_writes_without_reading_is_garbage_not_a_hang(tmp_path):
    flood = "import sys\nwhile True:\n    sys.stdout.write('spam ' * 20 + '\\n')"
    program = Program([sys.executable, "-c", flood], FAST, "flood")
    program.start()
    with pytest.raises(AgentFault) as fault:
        program.receive(time.monotonic() + 2)
    assert fault.value.kind == "garbage" and "spam" in fault.value.detail
    program.close()


def test_stderr_is_kept_to_its_cap(tmp_path):
    noisy = "import sys\nsys.stderr.write('e' * 1_000_000)\nsys.stderr.flush()"
    program = Program([sys.executable, "-c", noisy], Limits(stderr_bytes=1000), "noisy")
    program.start()
    with pytest.raises(AgentFault) as fault:
        program.receive(time.monotonic() + 5)
    assert fault.value.kind == "crash"  # it ended without answering
    log = program.stderr()
    assert log.startswith("e" * 1000) and "[999000 more bytes dropped]" in log
    program.close()


@pytest.mark.parametrize("limits", [FAST, OPEN_FAST], ids=["jail", "open"])
def test_the_bot_gets_a_bare_environment_and_a_private_directory(monkeypatch, limits):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-for-bots")
    show = (
        "import json, os, sys\n"
        "sys.stdin.readline()\n"
        "print(json.dumps({'env': sorted(os.environ), 'cwd': os.getcwd()}), flush=True)"
    )
    program = Program([sys.executable, "-c", show], limits, "env")
    program.start()
    deadline = time.monotonic() + 5
    program.send({"type": "start"}, deadline)
    seen = program.receive(deadline)
    bare = {"PATH", "HOME", "LANG", "PYTHONUNBUFFERED", "LC_CTYPE", *CACHES}
    if limits.mode == "bwrap":  # its home is in the sandbox
        assert set(seen["env"]) <= bare | {"PWD", "TMPDIR"}
        assert seen["cwd"] == jail.HOME and program.workdir is None
    else:
        assert set(seen["env"]) <= bare and program.workdir is not None
        assert seen["cwd"] == str(program.workdir)
        assert program.workdir.name.startswith("sparring-agent")
    program.close()


CACHES = ("SPARRING_CACHE_DIR", "SPARRING_KERNEL_CACHE", "SPARRING_KERNEL_SEED")


def test_a_sparring_program_in_a_seat_uses_the_arenas_caches(tmp_path, monkeypatch):
    """Its HOME is a fresh directory, yet it finds the kernels and tables the arena's own
    processes made: nothing is compiled or built into its HOME (~2 CPU-seconds a start)."""
    monkeypatch.setenv("SPARRING_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SPARRING_KERNEL_CACHE", raising=False)
    monkeypatch.chdir(tmp_path)
    play = (
        "import json, os, sys\n"
        "from sparring.poker.game import Holdem\n"
        "Holdem(3).new_state(1)\n"  # the engine's kernels and the evaluator's tables
        "sys.stdin.readline()\n"
        "home = os.environ['HOME']\n"
        "made = sorted(os.path.relpath(os.path.join(d, f), home)"
        " for d, _, fs in os.walk(home) for f in fs)\n"
        "env = {k: os.environ.get(k) for k in ('SPARRING_CACHE_DIR', 'SPARRING_KERNEL_CACHE')}\n"
        "print(json.dumps({'env': env, 'made': made}), flush=True)"
    )
    from sparring.poker.game import Holdem

    tables.load_tables.cache_clear()
    tables.load_tables()  # built into $SPARRING_CACHE_DIR, as the arena's are
    Holdem(3).new_state(1)  # the arena's own processes compiled these kernels
    program = Program([sys.executable, "-c", play], Limits(start_s=60, memory_mb=4096), "seat")
    program.start()
    deadline = time.monotonic() + 60
    program.send({"type": "start"}, deadline)
    seen = program.receive(deadline)
    program.close()
    shared = Path.home() / ".cache" / "sparring" / "kernels"
    assert seen["env"] == {
        "SPARRING_CACHE_DIR": str(tmp_path / "cache"),
        "SPARRING_KERNEL_CACHE": caches.SANDBOX_KERNELS,  # its own, copied from the shared
    }
    # nothing built (the tables are the arena's), nothing compiled: every kernel file in its
    # home is a copy of the machine's (which it may read and never write)
    private = Path(caches.SANDBOX_KERNELS).relative_to(jail.HOME)
    assert seen["made"] and all(Path(m).is_relative_to(private) for m in seen["made"])
    for made in seen["made"]:
        inside = Path(made).relative_to(private)
        assert (shared / inside).exists(), made
    assert tables.cache_path().parent == tmp_path / "cache" and tables.cache_path().exists()


@pytest.mark.skipif(network_isolation() is None, reason="no network namespaces on this machine")
def test_a_bot_cannot_reach_the_network(tmp_path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(0.5)
    port = listener.getsockname()[1]
    probe = (
        "import json, socket, sys\n"
        "sys.stdin.readline()\n"
        "try:\n"
        f"    socket.create_connection(('127.0.0.1', {port}), timeout=2); said = 'connected'\n"
        "except OSError as exc:\n"
        "    said = type(exc).__name__\n"
        "print(json.dumps({'ready': True, 'net': said}), flush=True)"
    )
    program = Program([sys.executable, "-c", probe], FAST, "net")
    program.start()
    assert program.isolated
    deadline = time.monotonic() + 5
    program.send({"type": "start"}, deadline)
    answer = program.receive(deadline)
    program.close()
    assert answer["net"] != "connected", answer
    with pytest.raises(TimeoutError):  # nothing reached the listener
        listener.accept()
    listener.close()


def test_a_program_killed_from_outside_is_a_crash_with_its_signal(tmp_path):
    agent = ProgramAgent([sys.executable, str(EXAMPLES / "random_bot.py")], OPEN_FAST, "victim")
    game = game_api.get("flagbots")
    agent.start({"game": "flagbots", "seat": 0, "players": 2, "seed": 0})
    [program] = descendants(agent.program.pid)  # the bot itself, under its keeper
    os.kill(program, signal.SIGKILL)
    with pytest.raises(AgentFault) as fault:
        agent.act(game.new_state(0).observation(0), [1, 2])
    assert fault.value.kind == "crash" and "SIGKILL" in fault.value.detail
    assert agent.program is None


@pytest.mark.parametrize(
    "spec, says",
    [
        ("cmd:", "agent=cmd: is not allowed: expected cmd: followed by a command line"),
        ("cmd:/no/such/bot", "a program that exists (/no/such/bot: no such program)"),
        ("cmd:" + __file__, "an executable program"),
        ("py:no.such.module:Bot", "an importable module"),
        ("py:sparring.arena.agents:Nope", "a class or factory Nope in sparring.arena.agents"),
        ("py:notaspec", "py:<module>:<Name>"),
        # a function that is no agent factory (it needs arguments), a class with no act
        ("py:os:system", "a factory called with no arguments that makes one (os.system is not)"),
        ("py:collections:OrderedDict", "a class with act(observation, legal)"),
        ("flagbots@depth=0", "flagbots@depth=<1..10>"),
        ("flagbots@depth=30", "flagbots@depth=<1..10>"),  # depth 30 would never answer
        ("alphago", "an agent spec: one of py:<module>:<Name>, cmd:<command line>, acpc:"),
    ],
)
def test_a_bad_spec_is_one_line_naming_what_is_allowed(spec, says):
    from sparring.runtime.errors import ConfigError

    with pytest.raises(ConfigError) as error:
        parse(spec)
    assert says in str(error.value) and "\n" not in str(error.value)


def test_negative_limits_are_refused():
    for field in ("move_s", "start_s", "cpu_s", "game_s", "memory_mb"):
        with pytest.raises(ValueError, match=f"{field}=-1 is not allowed"):
            Limits(**{field: -1})


class Buggy:
    """An in-process agent with a bug, or one that answers 1.0 for the move 1."""

    def __init__(self, how: str) -> None:
        self.how = how

    def act(self, observation, legal):
        if self.how == "raise":
            raise KeyError("oops")
        if self.how == "float":
            return float(legal[0])
        import numpy as np

        return np.int64(legal[0])  # a numpy integer is the int it holds


@pytest.mark.parametrize("how, kind", [("raise", "crash"), ("float", "illegal"), ("numpy", None)])
def test_an_in_process_agents_bug_loses_its_game_not_the_contest(how, kind):
    record = play_game(game_api.get("flagbots"), [Buggy(how), FirstAgent()], seed=1)
    if kind is None:
        assert record.forfeit_seat is None and record.decisions > 0
    else:
        assert record.forfeit_seat == 0 and record.forfeit_kind == kind, record


def test_in_a_one_player_game_a_forfeit_loses_and_a_faulty_bot_is_withdrawn(tmp_path):
    from sparring.arena.contest import Block, play_block

    done = play_block(
        Block("eleusis", bot(tmp_path, BODIES["crash"]), "first", 0, 4),
        secret=b"s" * 32, limits=FAST, opening_plies=0, withdraw_after=2,
    )  # fmt: skip
    assert [u["score"] for u in done["units"]] == [0.0] * 4  # A forfeits: B, who played, wins
    kinds = [u["games"][0]["forfeit_kind"] for u in done["units"]]
    assert kinds == ["crash", "crash", "withdrawn", "withdrawn"]  # B's games between don't reset
    assert "withdrawn after 2 faults in a row" in done["withdrawn"]["A"]
