"""Small ACPC programs for the dealer side's tests (standard library only; run as scripts).

    python acpc_bots.py <mode> [<anything>...] <host> <port>

(the words between are not read: two programs whose command lines end alike, for their names)

Every mode but ``silent``/``exit`` sends ``VERSION:2.0.0`` and then answers every state it is
sent (a minimal player need not know whose turn it is: the dealer ignores answers to states
that are not its question):

- ``caller``: ``c`` always;
- ``folder``: ``f`` always (a fold with nothing to call is an invalid action: played as call);
- ``junk``: ``x`` (no action at all), and a comment line before each answer;
- ``hang``: answers the first state, then never again;
- ``exit``: exits at once; ``connect_exit``: connects, then exits at once (status 4);
  ``badversion``: sends ``HELLO`` instead of the version;
- ``probe:<port>``: tries 127.0.0.1:<port> outside (prints what happened to stderr), then calls.
"""

import socket
import sys
import time

mode, host, port = sys.argv[1], sys.argv[-2], int(sys.argv[-1])
if mode == "exit":
    sys.exit(3)
conn = socket.create_connection((host, port))
if mode == "connect_exit":
    sys.exit(4)
conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
if mode.startswith("probe:"):
    try:
        socket.create_connection(("127.0.0.1", int(mode.split(":")[1])), timeout=2)
        print("probe: connected", file=sys.stderr)
    except OSError as exc:
        print(f"probe: {type(exc).__name__}", file=sys.stderr)
conn.sendall(b"HELLO\r\n" if mode == "badversion" else b"VERSION:2.0.0\r\n")
letter = {"folder": b"f", "junk": b"x"}.get(mode, b"c")
for answered, raw in enumerate(conn.makefile("rb")):
    state = raw.rstrip(b"\r\n")
    if mode == "hang" and answered:
        time.sleep(3600)
    prefix = b"# thinking\r\n" if mode == "junk" else b""
    conn.sendall(prefix + state + b":" + letter + b"\r\n")
