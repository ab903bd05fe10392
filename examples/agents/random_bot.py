#!/usr/bin/env python3
"""A minimal arena bot for any game: answers every decision with a random legal action.

It imports nothing of Sparring: the line protocol (docs/reference/protocols.md) is all it
needs.
    sparring arena ... 'cmd:python3 examples/agents/random_bot.py'
"""

import json
import random
import sys

rng = random.Random()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        rng.seed(f"{message['seed']}/{message['seat']}")  # the same game, the same moves
        print(json.dumps({"ready": True, "name": "random_bot"}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"action": rng.choice(message["legal"])}), flush=True)
