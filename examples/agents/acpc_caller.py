#!/usr/bin/env python3
"""A minimal ACPC poker player (protocol 2.0.0) in plain Python: it checks or calls every time.

It imports nothing of Sparring and knows only the rules of limit hold'em that decide whose
turn it is (who opens each betting round, who is still in, when a round is over), so it answers
exactly the states that are questions to it. Run by a dealer as

    python3 acpc_caller.py <host> <port>

and, in Sparring's arena, as the agent spec ``acpc:python3 examples/agents/acpc_caller.py``.
"""

import socket
import sys


def to_act(rounds, players):
    """The position to act after the betting ``rounds`` (lists of letters), or None when the
    hand is over. Sparring's game: heads up position 1 opens preflop; else position 2; every
    later round is opened by position 0 (the first still in from there)."""
    folded = set()
    for number, letters in enumerate(rounds):
        seat = (1 if players == 2 else 2 % players) if number == 0 else 0
        while seat in folded:
            seat = (seat + 1) % players
        waiting = {p for p in range(players) if p not in folded}  # still to speak this round
        for letter in letters:
            if letter == "f":
                folded.add(seat)
                waiting.discard(seat)
            elif letter == "r":
                waiting = {p for p in range(players) if p not in folded and p != seat}
            else:
                waiting.discard(seat)
            if players - len(folded) == 1:
                return None
            seat = (seat + 1) % players
            while seat in folded:
                seat = (seat + 1) % players
        if not waiting and number == 3:
            return None  # the river is closed: a showdown
    return seat


def main():
    host, port = sys.argv[1], int(sys.argv[2])
    conn = socket.create_connection((host, port))
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    conn.sendall(b"VERSION:2.0.0\r\n")
    for raw in conn.makefile("rb"):
        state = raw.rstrip(b"\r\n").decode()
        if not state.startswith("MATCHSTATE:"):
            continue  # a comment
        _, position, _, betting, cards = state.split(":", 4)
        players = cards.split("/")[0].count("|") + 1
        if to_act([list(r) for r in betting.split("/")], players) == int(position):
            conn.sendall(f"{state}:c\r\n".encode())


if __name__ == "__main__":
    main()
