#!/usr/bin/env python3
"""A minimal Mus bot for the arena (docs/reference/protocols.md), a cautious one: it asks for
no mus, passes, and declines every bet offered to it (paso, no_mus, no_quiero: whichever is
legal), else takes the first legal action. Imports nothing of Sparring."""

import json
import sys

CAUTIOUS = ("no_mus", "paso", "no_quiero")

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"ready": True, "name": "mus_bot"}), flush=True)
    elif message["type"] == "act":
        legal = message["legal"]
        action = next((a for a in CAUTIOUS if a in legal), legal[0])
        print(json.dumps({"action": action}), flush=True)
