"""Pairing a Swiss round, in the bot's own process.

The rule (`bot.rules.swiss.pair_round`) matches with rustworkx, which costs about 4 MB of
resident memory and 10 ms to import. Every measured round pairs in under 0.1 s up to 512
players and under 0.5 s at 1,024 (`benchmarks/pairing.py`, docs/MEASUREMENTS.md); the rounds
service still pairs in a worker thread, never on the event loop, with a time limit
(`swiss.pairing_timeout_seconds`). Earlier versions matched with networkx (23 MB) in a child
process, at 150-200 ms a round; neither is worth it any more. networkx is imported only for
weights too large for rustworkx's integers, which no measured field reaches.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from bot.rules import swiss


def pair_round(
    seeding: Sequence[str],
    results: Sequence[swiss.Result],
    *,
    withdrawn: Collection[str] = (),
    bye_points: float = 1.0,
    short_median_buchholz: str = "sum",
) -> list[swiss.Pair]:
    """:func:`bot.rules.swiss.pair_round`; raises ``ValueError`` when no valid pairing exists."""
    return swiss.pair_round(
        seeding,
        results,
        withdrawn=withdrawn,
        bye_points=bye_points,
        short_median_buchholz=short_median_buchholz,
    )
