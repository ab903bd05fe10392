"""The scientists by name: who plays (``NAMES``, ``LEARNERS``), the one parameter each takes,
and ``parse_scientist`` for a spec ``name[:key=value]``.

Names and checks only, no kernels: the config and the CLI check a spec without importing numba.
What each scientist does is in ``scientists``.
"""

from __future__ import annotations

NAMES = (
    "frequency",
    "greedy_frequency",
    "beta_thompson",
    "dirichlet_gibbs",
    "em_greedy",
    "kl_ucb",
    "oracle",
    "optimal",
    "informed",
)
# A scientist's kind in the kernels is its index in NAMES.
FREQUENCY, GREEDY_FREQUENCY, BETA_THOMPSON, DIRICHLET_GIBBS, EM_GREEDY, KL_UCB = range(6)
ORACLE, OPTIMAL, INFORMED = 6, 7, 8
LEARNERS = NAMES[:6]  # the rest are references: told the deck (oracle, optimal) or its family
# params[0] per kind: reset threshold (frequency), Dirichlet alpha (gibbs, em), c (kl_ucb)
DEFAULT_PARAM = {
    "frequency": 50.0,
    "greedy_frequency": 0.0,
    "beta_thompson": 0.0,
    "dirichlet_gibbs": 0.1,
    "em_greedy": 1.001,
    "kl_ucb": 0.5,  # c of the bound c·log(t + 2): 0.25 explores too little on best != mode
    "oracle": 0.0,
    "optimal": 0.0,
    "informed": 0.0,
}


# The one parameter a scientist takes, as written in a spec "name:key=value", with its range.
PARAMS = {
    "frequency": ("reset", 0.0, float("inf")),  # harma since the last reset
    "dirichlet_gibbs": ("alpha", 0.0, float("inf")),  # the Dirichlet prior (sparse below 1)
    "em_greedy": ("alpha", 1.0, float("inf")),  # MAP needs alpha >= 1
    "kl_ucb": ("c", 0.0, float("inf")),  # exploration: bound c·log(t + 2)
}


def parse_scientist(spec: str) -> tuple[str, float]:
    """ "kl_ucb" → ("kl_ucb", 0.5) (the default); "dirichlet_gibbs:alpha=0.3" → (…, 0.3).
    Raises ValueError naming what is wrong and what is allowed."""
    name, _, rest = spec.partition(":")
    if name not in NAMES:
        raise ValueError(f"unknown scientist {name!r}; choose from {', '.join(NAMES)}")
    if not rest:
        return name, DEFAULT_PARAM[name]
    if name not in PARAMS:
        raise ValueError(f"{spec!r}: {name} takes no parameter")
    key, low, high = PARAMS[name]
    got, _, value = rest.partition("=")
    if got != key:
        raise ValueError(f"{spec!r}: {name} takes {key}=<number>, got {rest!r}")
    try:
        param = float(value)
    except ValueError:
        raise ValueError(f"{spec!r}: {key} must be a number, got {value!r}") from None
    if not (low < param < high or (name == "em_greedy" and param == low)):
        raise ValueError(f"{spec!r}: {key} must be in ({low:g}, {high:g}), got {param:g}")
    return name, param
