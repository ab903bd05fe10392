#!/usr/bin/env python3
"""A minimal FlagBots bot for the arena (docs/reference/protocols.md): a legal move chosen at
random, the same ones for the same game (seeded by the game's seed and seat). Imports nothing
of Sparring."""

import json
import random
import sys

rng = random.Random()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        rng.seed(f"flagbots/{message['seed']}/{message['seat']}")
        print(json.dumps({"ready": True, "name": "flagbots_bot"}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"action": rng.choice(message["legal"])}), flush=True)
