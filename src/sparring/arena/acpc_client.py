"""Any Sparring agent as an ACPC client: it connects to an ACPC dealer and plays every hand it
is sent (``sparring poker acpc-client``).

``ClientSession.receive`` is the protocol, one line at a time, with no I/O: a ``MATCHSTATE``
line is read back into the engine (``poker.acpc.replay``: a line whose betting is no legal
hand is a protocol error), and on the receiving position's turn the agent is asked for an
action among the engine's legal ones, so no invalid action is ever sent. The agent sees its
seat's observation as in the arena (``start`` on a new hand number, ``end`` with the hand's
returns once its last state arrives). ``play`` is the TCP side: ``VERSION:2.0.0`` first, then
line by line until the dealer closes the connection.
"""

from __future__ import annotations

import socket
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sparring.poker.acpc import LETTER, VERSION, AcpcError, parse_match_state, replay


class ProtocolError(Exception):
    """The dealer sent something this client cannot take; one line."""


class NotADealer(ProtocolError):
    """The first line from the address is no match state: whatever listens there (a port
    another program has taken) is not an ACPC dealer."""


@dataclass
class ClientSession:
    """The protocol state of one client: ``agent`` at a ``seats``-seat table."""

    agent: Any
    seats: int
    hands: int = 0
    actions: int = 0
    _hand: int | None = None
    _ended: bool = False

    def receive(self, line: str) -> str | None:
        """The answer to one line from the dealer (no line end), or None when it needs none."""
        if not line or line[0] in "#;":
            return None
        try:
            state = parse_match_state(line, self.seats)
            hand = replay(state)
        except AcpcError as exc:
            if self._hand is None and not line.startswith("MATCHSTATE:"):  # no dealer there
                raise NotADealer(f"it sent {line[:60]!r}, not a match state") from None
            raise ProtocolError(str(exc)) from None
        if state.hand_number != self._hand:
            self._finish([0.0] * self.seats)  # a hand cut short: the agent still hears its end
            self._hand, self._ended, self.hands = state.hand_number, False, self.hands + 1
            info = {"game": "poker", "seat": state.position, "players": self.seats,
                    "seed": state.hand_number}  # fmt: skip
            _call(self.agent, "start", info)
        if hand.is_terminal():
            self._finish(hand.returns())
            return None
        if hand.current_player() != state.position:
            return None
        legal = hand.legal_actions()
        action = self.agent.act(hand.observation(state.position), legal)
        if hasattr(action, "item") and not isinstance(action, str):
            action = action.item()
        if action not in legal:  # never sent: the agent's bug, named
            raise ProtocolError(f"the agent chose {action!r}; allowed: {', '.join(legal)}")
        self.actions += 1
        return f"{line}:{LETTER[action]}"

    def _finish(self, returns: Sequence[float]) -> None:
        if self._hand is not None and not self._ended:
            self._ended = True
            _call(self.agent, "end", list(returns))


def _call(agent: Any, method: str, *args: Any) -> None:
    hook = getattr(agent, method, None)
    if callable(hook):
        hook(*args)


def play(agent: Any, seats: int, host: str, port: int, timeout_s: float = 600.0) -> ClientSession:
    """Connect to the dealer at ``host``:``port`` and play until it closes the connection.
    ``OSError`` if it cannot be reached; ``ProtocolError`` on a line it cannot take or a
    dealer silent for ``timeout_s``."""
    session = ClientSession(agent, seats)
    with socket.create_connection((host, port), timeout=min(timeout_s, 10.0)) as conn:
        conn.settimeout(timeout_s)
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn.sendall(f"{VERSION}\r\n".encode())
        buffer = b""
        while True:
            try:
                chunk = conn.recv(1 << 16)
            except TimeoutError:
                raise ProtocolError(f"the dealer sent nothing for {timeout_s:g} s") from None
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            answers = []
            for raw in lines:
                answer = session.receive(raw.rstrip(b"\r").decode("latin-1"))
                if answer is not None:
                    answers.append(answer)
            if answers:
                try:
                    conn.sendall("".join(a + "\r\n" for a in answers).encode())
                except (BrokenPipeError, ConnectionResetError):
                    break
    if session._hand is None:  # closed before any state: whatever listens is no dealer
        raise NotADealer("it closed the connection without sending a match state")
    session._finish([0.0] * seats)
    return session
