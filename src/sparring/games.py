"""The games of Sparring, registered once: name -> "module:attribute" of its ``game_api.Game``.

``sparring.game_api.get(name)`` imports a game's package only when it is first asked for, so this
table costs nothing to read. Adding a game = its package (with an adapter satisfying
``sparring.game_api``) + one line here.
"""

from __future__ import annotations

GAMES: dict[str, str] = {
    "poker": "sparring.poker.game:GAME",
    "mus": "sparring.mus.adapter:GAME",
    "flagbots": "sparring.flagbots.game:GAME",
    "eleusis": "sparring.eleusis.game:GAME",
}
