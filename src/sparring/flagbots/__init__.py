"""Game-tree search: FlagBots and a compiled alpha-beta engine (specs/flagbots.md)."""
