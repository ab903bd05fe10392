"""What a process tree listens on, from /proc (Linux): no psutil needed."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path

LOOPBACK = {"127.0.0.1", "::1", "::ffff:127.0.0.1"}


@dataclass(frozen=True)
class Listener:
    process: str  # /proc/<pid>/comm
    ip: str
    port: int


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo += children.get(current, [])
    return found


def _listening_sockets() -> dict[str, tuple[str, int]]:
    """socket inode -> (ip, port) of every TCP socket in LISTEN state (state 0A)."""
    out = {}
    for table, family in (("tcp", socket.AF_INET), ("tcp6", socket.AF_INET6)):
        try:
            lines = Path(f"/proc/net/{table}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] != "0A":
                continue
            hex_ip, hex_port = fields[1].split(":")
            raw = bytes.fromhex(hex_ip)  # 32-bit words in host (little-endian) order
            raw = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
            out[fields[9]] = (socket.inet_ntop(family, raw), int(hex_port, 16))
    return out


def listeners(pid: int) -> set[Listener]:
    """The TCP sockets the tree of ``pid`` listens on right now."""
    table = _listening_sockets()
    found = set()
    for member in descendants(pid):
        try:
            name = Path(f"/proc/{member}/comm").read_text().strip()
            fds = os.listdir(f"/proc/{member}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                link = os.readlink(f"/proc/{member}/fd/{fd}")
            except OSError:
                continue
            inode = link[len("socket:[") : -1] if link.startswith("socket:[") else None
            if inode in table:
                found.add(Listener(name, *table[inode]))
    return found
