"""Sparring's games in the field's standard APIs: PettingZoo (``interop.pettingzoo``: every
registered game as an AEC environment) and OpenSpiel (``interop.openspiel``: every registered
game as a pyspiel game). A game joins them by offering the bridge methods of its ``Game``:
``actions()`` (its whole action set in a fixed order), ``observation_shape()`` and
``encode(observation)`` (the seat's observation as numbers).

The other way, ``interop.spiel_games`` makes any OpenSpiel game a Sparring game (the registry's
``openspiel`` family: ``game_api.get("openspiel:connect_four")``) and OpenSpiel's bots agents
(``openspiel:mcts:...``).
"""
