"""A hostile entrant against the sandbox (runtime.programs.jail), as root, as CI runs it.

Every attack is run twice by the same bot (``hostile_bot.py``, which plays legal moves): inside
the sandbox, where it must fail and leave nothing running, and with ``sandbox: none``, where it
must succeed (the positive control: an attack that cannot work anywhere proves nothing).
"""

from __future__ import annotations

import dataclasses
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sparring.arena.protocol import start_message
from sparring.runtime.programs import jail
from sparring.runtime.programs.program import Limits, Program

pytestmark = pytest.mark.skipif(
    jail.problem() is not None, reason=f"no sandbox here: {jail.problem()}"
)

BOT = Path(__file__).with_name("hostile_bot.py")
SANDBOXED = Limits(move_s=5.0, start_s=20.0, memory_mb=400, cpu_s=60, sandbox="bwrap")
OPEN = dataclasses.replace(SANDBOXED, sandbox="none", network=True)


def attack(limits: Limits, name: str, *args: str) -> dict:
    """Start the bot with ``name``'s attack, send it a start message, return its report; then
    end it and check that nothing of it is left running."""
    program = Program([sys.executable, str(BOT), name], limits, "hostile")
    program.start()
    try:
        info = {"game": "flagbots", "seat": 0, "players": 2, "seed": 0, "args": list(args)}
        deadline = time.monotonic() + limits.start_s
        program.send(start_message(info, limits), deadline)
        return program.receive(deadline)["report"]
    finally:
        keeper = program.pid
        program.close()
        assert keeper is not None and not _running_with(str(BOT)), "the bot outlived close()"


def _running_with(marker: str) -> list[int]:
    """Live processes whose command line holds ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if marker.encode() in cmdline and state not in ("Z", "X"):
                found.append(int(entry))
    return found


@pytest.fixture
def victim():
    """A process of the arena's user holding a secret in its environment (the arena's driver,
    a Ray worker, the opponent)."""
    canary = f"CANARY-{secrets.token_hex(8)}"
    proc = subprocess.Popen(
        [sys.executable, "-c", "import time; x = bytearray(1 << 16); time.sleep(120)"],
        env={**os.environ, "AWS_SECRET_ACCESS_KEY": canary},
    )
    time.sleep(0.2)
    yield proc, canary
    proc.kill()
    proc.wait()


@pytest.mark.parametrize("limits, won", [(SANDBOXED, False), (OPEN, True)], ids=["jail", "open"])
def test_no_secret_of_another_process_or_of_the_users_files(tmp_path, victim, limits, won):
    _, canary = victim
    credentials = tmp_path / "home" / ".aws" / "credentials"
    credentials.parent.mkdir(parents=True)
    credentials.write_text(f"aws_secret_access_key = {canary}\n")
    report = attack(limits, "read_secrets", canary, str(credentials))
    assert report["won"] is won, report
    if not won:
        assert report["env"] == [] and report["file"].startswith("!"), report


@pytest.mark.parametrize("limits, won", [(SANDBOXED, False), (OPEN, True)], ids=["jail", "open"])
def test_nothing_written_outside_its_home(tmp_path, limits, won):
    opponent = tmp_path / "opponent_bot.py"
    opponent.write_text("print('honest')\n")
    driver_file = tmp_path / "driver_cwd_file"
    own = [str(BOT)] if not won else []  # its own program file, read-only in the sandbox
    report = attack(limits, "write_outside", str(driver_file), str(opponent), *own)
    assert report["won"] is won, report
    if not won:
        assert opponent.read_text() == "print('honest')\n" and not driver_file.exists()
        assert "written by the hostile bot" not in BOT.read_text().splitlines()[-1]


@pytest.mark.parametrize("limits, won", [(SANDBOXED, False), (OPEN, True)], ids=["jail", "open"])
def test_no_signal_to_another_process(victim, limits, won):
    proc, _ = victim
    report = attack(limits, "kill", str(proc.pid))
    assert report["won"] is won, report
    time.sleep(0.1)
    assert (proc.poll() is None) is (not won)


@pytest.mark.parametrize("limits, won", [(SANDBOXED, False), (OPEN, True)], ids=["jail", "open"])
def test_no_read_of_another_process_memory(victim, limits, won):
    proc, _ = victim
    assert attack(limits, "peek_memory", str(proc.pid))["won"] is won


@pytest.mark.parametrize("limits, won", [(SANDBOXED, False), (OPEN, True)], ids=["jail", "open"])
def test_no_other_process_in_sight(limits, won):
    report = attack(limits, "processes")
    assert report["won"] is won, report
    if not won:
        assert report["seen"] <= 4  # the sandbox's init, the keeper, the bot (and a helper)


@pytest.mark.parametrize("limits, won", [(SANDBOXED, False), (OPEN, True)], ids=["jail", "open"])
def test_no_connection_to_the_machines_loopback_or_unix_sockets(tmp_path, limits, won):
    with socket.socket() as tcp, socket.socket(socket.AF_UNIX) as unix:
        tcp.bind(("127.0.0.1", 0))
        tcp.listen(1)
        unix_path = str(tmp_path / "raylet.sock")
        unix.bind(unix_path)
        unix.listen(1)
        report = attack(limits, "connect", str(tcp.getsockname()[1]), unix_path)
    assert report["won"] is won, report
    if won:
        assert report["reached"] == ["tcp", "unix"]


@pytest.mark.parametrize("limits, won", [(SANDBOXED, False), (OPEN, True)], ids=["jail", "open"])
def test_no_setns_into_another_process_network(victim, limits, won):
    proc, _ = victim
    assert attack(limits, "setns", str(proc.pid))["won"] is won


@pytest.mark.parametrize("limits, left", [(SANDBOXED, False), (OPEN, True)], ids=["jail", "open"])
def test_no_process_outlives_its_keeper_killed_by_the_bot(limits, left):
    marker = f"linger-{secrets.token_hex(6)}"
    program = Program([sys.executable, str(BOT), "linger"], limits, "hostile")
    program.start()
    try:
        deadline = time.monotonic() + limits.start_s
        info = {"game": "flagbots", "seat": 0, "players": 2, "seed": 0, "args": [marker]}
        program.send(start_message(info, limits), deadline)
        program.receive(deadline)
    except Exception:
        pass  # its keeper is dead: the bot may be gone before it answers
    finally:
        program.close()
    time.sleep(0.5)
    survivors = _running_with(marker)
    for pid in survivors:  # the positive control's survivor, ended here
        os.kill(pid, signal.SIGKILL)
    assert bool(survivors) is left


@pytest.mark.parametrize(
    "limits, won",
    [(dataclasses.replace(SANDBOXED, disk_mb=16, file_mb=256), False),
     (dataclasses.replace(OPEN, file_mb=256), True)],
    ids=["jail", "open"],
)  # fmt: skip
def test_its_home_is_bounded(limits, won):
    report = attack(limits, "fill_disk", "50")
    assert report["won"] is won, report
    if not won:
        assert report["mib"] <= 16


def test_its_largest_file_is_bounded():
    report = attack(dataclasses.replace(SANDBOXED, disk_mb=64, file_mb=8), "fill_disk", "32")
    assert not report["won"] and report["mib"] == 8, report


@pytest.mark.parametrize(
    "limits, won",
    [(dataclasses.replace(SANDBOXED, processes=32), False), (OPEN, True)],
    ids=["jail", "open"],
)
def test_its_processes_are_bounded(limits, won):
    report = attack(limits, "fork_many", "200")
    assert report["won"] is won, report
    if not won:
        assert report["forked"] < 32


def test_a_read_only_path_the_user_names_is_readable_and_nothing_beside_it(tmp_path):
    weights, beside = tmp_path / "weights", tmp_path / "other"
    weights.mkdir()
    beside.mkdir()
    (weights / "model.bin").write_text("MODEL")
    (beside / "secret").write_text("SECRET")
    limits = dataclasses.replace(SANDBOXED, read_only=(str(weights),))
    seen = attack(limits, "read_secrets", "MODEL", str(weights / "model.bin"))
    hidden = attack(limits, "read_secrets", "SECRET", str(beside / "secret"))
    assert seen["won"] and seen["file"].startswith("MODEL")
    assert not hidden["won"]


def test_a_read_only_path_that_does_not_exist_is_one_line():
    with pytest.raises(ValueError, match="read_only=/no/such/weights is not allowed"):
        Limits(read_only=("/no/such/weights",))


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_a_contest_with_a_bot_that_kills_its_opponent_keeps_the_honest_result(tmp_path, sandbox):
    """Through the arena's own contest (play_block): the attacker SIGKILLs every process named
    like its opponent at each game's start. Sandboxed, it reaches none: the block's scores are
    those of the same attacker doing nothing harmful (the honest result), the opponent is never
    charged, and nothing is left running. Unsandboxed (the control), the opponent dies and is
    charged with the crash."""
    from sparring.arena.contest import Block, contest_secret, play_block

    marker = f"victim-{secrets.token_hex(4)}"
    victim = tmp_path / f"{marker}.py"
    victim.write_text((Path(__file__).parents[2] / "examples/agents/random_bot.py").read_text())
    opponent = f"cmd:{sys.executable} {victim}"
    limits = dataclasses.replace(SANDBOXED if sandbox == "bwrap" else OPEN, network=False)

    def block(attack: str, *args: str) -> dict:
        attacker = f"cmd:{sys.executable} {BOT} {attack} {' '.join(args)}".strip()
        return play_block(Block("flagbots", attacker, opponent, 0, 2),
                          secret=contest_secret(b"k" * 32, 0), limits=limits,
                          opening_plies=2, withdraw_after=3)  # fmt: skip

    def outcome(result: dict) -> list:
        return [(g["returns"], g["forfeit_kind"]) for u in result["units"] for g in u["games"]]

    attacked, honest = block("kill_named", marker), block("processes")
    faults = [kind for _, kind in outcome(attacked) if kind]
    if sandbox == "bwrap":
        assert outcome(attacked) == outcome(honest) and faults == []
    else:
        assert faults and set(faults) <= {"crash", "withdrawn"}  # the opponent was killed
    assert not _running_with(marker) and not _running_with(str(BOT))
