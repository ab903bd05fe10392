"""The games of Sparring, registered once: name -> "module:attribute" of its ``game_api.Game``.

``sparring.game_api.get(name)`` imports a game's package only when it is first asked for, so this
table costs nothing to read. Adding a game = its package (with an adapter satisfying
``sparring.game_api``) + one line here, and one in ``TRAITS`` if it declares traits.
"""

from __future__ import annotations

GAMES: dict[str, str] = {
    "poker": "sparring.poker.game:GAME",
    "mus": "sparring.mus.game:GAME",
    "flagbots": "sparring.flagbots.game:GAME",
    "eleusis": "sparring.eleusis.game:GAME",
}

TRAITS: dict[str, str] = {
    "poker": "sparring.poker.traits:TRAITS",
    "mus": "sparring.mus.traits:TRAITS",
    "flagbots": "sparring.flagbots.traits:TRAITS",
    "eleusis": "sparring.eleusis.traits:TRAITS",
}
"""name -> "module:attribute" of each game's light declaration of its traits (a
``game_api.Traits`` its ``Game`` inherits, in a module that imports no engine): what the config
checks read (table sizes, the game's own agent specs) without compiling a kernel."""

FAMILIES: dict[str, str] = {
    "openspiel": "sparring.interop.spiel_games:spiel_game",
}
"""prefix -> "module:function" that makes the ``game_api.Game`` of a family's game from the rest
of its name: ``openspiel:connect_four``, ``openspiel:leduc_poker(players=2)`` (any pyspiel game
string) are OpenSpiel's games, imported only when such a name is asked for."""
