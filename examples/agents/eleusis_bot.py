#!/usr/bin/env python3
"""A minimal Eleusis scientist for the arena (docs/reference/protocols.md): it keeps the suit
and the number of its last guess that the feedback said were right and draws the rest at
random (seeded by the game's seed). Imports nothing of Sparring."""

import json
import random
import sys

rng = random.Random()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        rng.seed(f"eleusis/{message['seed']}")
        print(json.dumps({"ready": True, "name": "eleusis_bot"}), flush=True)
    elif message["type"] == "act":
        legal, last = message["legal"], message["observation"]["last"]
        suits = sorted({card.split()[0] for card in legal})
        numbers = sorted({card.split()[1] for card in legal}, key=int)
        suit, number = rng.choice(suits), rng.choice(numbers)
        if last:
            right_suit, right_number = last["guess"].split()
            suit = right_suit if last["suit_right"] else suit
            number = right_number if last["number_right"] else number
        guess = f"{suit} {number}"
        print(json.dumps({"action": guess if guess in legal else rng.choice(legal)}), flush=True)
