"""The game API every Sparring game follows (after OpenSpiel's): a state with
``current_player()``, ``legal_actions()``, ``apply_action(a)``, ``is_terminal()``,
``returns()`` and per-seat observations. ``sparring.conformance`` checks any game against it.
"""

TERMINAL = -1
"""What ``current_player()`` returns once the game is over."""
