"""The arena: any agent (Sparring's own, a Python class, an outside program) against any other,
in any of the games of ``sparring.game_api``, sandboxed, with faults as forfeits."""
