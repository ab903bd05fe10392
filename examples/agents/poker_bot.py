#!/usr/bin/env python3
"""A minimal poker bot for the arena (docs/reference/protocols.md): raises with a pair, an ace
or a king in the hole, or when the board pairs one of its cards; otherwise checks or calls, and
folds to a bet only after the flop with nothing. Imports nothing of Sparring."""

import json
import sys

STRONG = set("AK")

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"ready": True, "name": "poker_bot"}), flush=True)
    elif message["type"] == "act":
        seen, legal = message["observation"], message["legal"]
        mine = [card[0] for card in seen["hole"]]
        board = {card[0] for card in seen["board"]}
        strong = mine[0] == mine[1] or STRONG & set(mine) or board & set(mine)
        if strong and "raise" in legal:
            action = "raise"
        elif seen["board"] and seen["to_call"] and "fold" in legal:
            action = "fold"
        else:
            action = "call"
        print(json.dumps({"action": action}), flush=True)
