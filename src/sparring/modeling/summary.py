"""The bot's private summary of an opponent after a game, in Spanish and English (§8.5–6).

Lines come from message catalogues (Spanish first: it is the game's language):
- what happened this game: "The opponent accepted 8 of 10 bets.";
- the strongest bluffing tendency by lance: "Tends to bluff in grande (P≈0.41, medium
  confidence)." (only with at least ``min_n`` revealed bets there);
- how aggression moves with the score: "More aggressive when behind (+18 pp)." (a difference of
  at least ``min_pp`` percentage points with at least ``min_n`` opportunities);
- suspected strategy changes.
"""

from __future__ import annotations

from collections.abc import Sequence

from sparring.modeling.drift import StrategyShiftSuspected
from sparring.modeling.model import PlayerModel
from sparring.modeling.rate import Rate
from sparring.mus.log import LANCES as BETTING_LANCES

LANGS = ("es", "en")
CATALOGUE: dict[str, dict[str, str]] = {
    "es": {
        "accepted": "El rival aceptó {a} de {n} envites.",
        "bluffs": "Tiende a farolear en {lance} (P≈{p:.2f}, confianza {conf}).",
        "more_aggressive": "Más agresivo cuando {when} ({pp:+.0f} pp).",
        "less_aggressive": "Menos agresivo cuando {when} ({pp:+.0f} pp).",
        "shift": "Posible cambio de estrategia en {metric}.",
        "nothing": "Todavía no hay datos suficientes sobre este rival.",
        "user": "El bot ha actualizado su modelo de tu juego.",
        "behind": "va por detrás",
        "ahead": "va por delante",
        "low": "baja",
        "medium": "media",
        "high": "alta",
        "aggression": "agresividad",
        "bluff_frequency": "faroles",
        "acceptance_rate": "aceptación",
    },
    "en": {
        "accepted": "The opponent accepted {a} of {n} bets.",
        "bluffs": "Tends to bluff in {lance} (P≈{p:.2f}, {conf} confidence).",
        "more_aggressive": "More aggressive when {when} ({pp:+.0f} pp).",
        "less_aggressive": "Less aggressive when {when} ({pp:+.0f} pp).",
        "shift": "Possible change of strategy in {metric}.",
        "nothing": "Not enough data on this opponent yet.",
        "user": "The bot has updated its model of your play.",
        "behind": "behind",
        "ahead": "ahead",
        "low": "low",
        "medium": "medium",
        "high": "high",
        "aggression": "aggression",
        "bluff_frequency": "bluffing",
        "acceptance_rate": "acceptance",
    },
}


def _pooled(model: PlayerModel, metric: str, score: str | None) -> Rate:
    """The metric over all lances, in one score situation (None = every situation)."""
    s = f = 0.0
    for (m, key), (succ, fail) in model.counts.items():
        if m != metric:
            continue
        if (score is None and len(key) == 1) or (len(key) == 2 and key[1] == score):
            s, f = s + succ, f + fail
    return Rate(1 + s, 1 + f)


def summarize(
    game: PlayerModel,
    model: PlayerModel,
    shifts: Sequence[StrategyShiftSuspected] = (),
    lang: str = "es",
    min_n: int = 5,
    min_pp: float = 10.0,
) -> list[str]:
    """Summary lines for one opponent: ``game`` holds this game's observations, ``model`` the
    updated long-term model."""
    if lang not in CATALOGUE:
        raise ValueError(f"language {lang!r}: choose from {', '.join(LANGS)}")
    text = CATALOGUE[lang]
    lines = []
    accepted, refused = game.counts.get(("acceptance_rate", ()), (0.0, 0.0))
    if accepted + refused > 0:
        lines.append(text["accepted"].format(a=round(accepted), n=round(accepted + refused)))
    best = None
    for lance in BETTING_LANCES:
        rate = model.estimate("bluff_frequency", (lance,))
        if rate.n() >= min_n and (best is None or rate.mean() > best[1].mean()):
            best = (lance, rate)
    if best is not None and best[1].mean() >= 0.3:
        lance, rate = best
        conf = text[rate.confidence()[1]]
        lines.append(text["bluffs"].format(lance=lance, p=rate.mean(), conf=conf))
    overall = _pooled(model, "aggression", None)
    for when in ("behind", "ahead"):
        there = _pooled(model, "aggression", when)
        if there.n() < min_n:
            continue
        pp = 100 * (there.mean() - overall.mean())
        if abs(pp) >= min_pp:
            key = "more_aggressive" if pp > 0 else "less_aggressive"
            lines.append(text[key].format(when=text[when], pp=pp))
    for shift in shifts:
        lines.append(text["shift"].format(metric=text.get(shift.metric, shift.metric)))
    return lines or [text["nothing"]]


def user_message(lang: str = "es") -> str:
    return CATALOGUE[lang]["user"]
