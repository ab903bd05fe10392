"""7-card evaluations per second on one core: our batch kernel vs eval7 and phevaluator.

    python benchmarks/evaluator.py [--quick]

All three evaluate the same random hands in this run; the ratios are what RESULTS.md keeps.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import best_rate, parser, random_hands, report

from sparring.poker.evaluator import evaluate7


def main() -> None:
    args = parser(__doc__).parse_args()
    n_ours = 4_000_000 if args.quick else 20_000_000
    n_lib = 100_000 if args.quick else 400_000
    hands = random_hands(n_ours, 7, seed=1)
    evaluate7(hands[:10])  # compile / load the kernel outside the timing
    ours = best_rate(lambda: len(evaluate7(hands)))

    import eval7
    from phevaluator import evaluate_cards

    deck = [eval7.Card(r + s) for r in "23456789TJQKA" for s in "cdhs"]
    sample = hands[:n_lib].tolist()
    as_eval7 = [[deck[c] for c in row] for row in sample]  # conversion not timed

    def run_eval7() -> int:
        for h in as_eval7:
            eval7.evaluate(h)
        return len(as_eval7)

    def run_phe() -> int:
        for h in sample:
            evaluate_cards(*h)
        return len(sample)

    e7 = best_rate(run_eval7)
    phe = best_rate(run_phe)
    report(
        "evaluator (7-card hands, one core)",
        [
            ("sparring evaluate7 (batch), hands/s", ours, f"{n_ours:,} random hands"),
            ("eval7.evaluate (per hand), hands/s", e7, f"ours is {ours / e7:,.0f}x"),
            ("phevaluator.evaluate_cards, hands/s", phe, f"ours is {ours / phe:,.0f}x"),
        ],
        {
            "ours_hands_per_s": round(ours),
            "eval7_hands_per_s": round(e7),
            "phevaluator_hands_per_s": round(phe),
            "ratio_vs_eval7": round(ours / e7, 1),
            "ratio_vs_phevaluator": round(ours / phe, 1),
            "goal_hands_per_s": 150_000_000,
            "quick": args.quick,
        },
    )


if __name__ == "__main__":
    main()
