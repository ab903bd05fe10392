"""Mus, the Spanish card game (FEM rules, specs/mus.md). So far: cards, lance keys and exact
hand-strength percentiles; the engine, players and decision log are still to come."""
