"""``python -m sparring.cli``: the ``sparring`` program."""

from sparring.cli import console

console()
